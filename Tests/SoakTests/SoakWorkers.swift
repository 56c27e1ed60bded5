import Foundation
import Synchronization

/// Worker loops on threads of their own (each blocks in `waitpid`, which must not happen
/// on the two-thread concurrency pool), each running operations until the deadline.
enum SoakWorkers {
    /// Runs `count` workers until `deadline`; returns every record and the harness errors.
    /// Worker `n` tags its operations `<prefix><n>i<iteration>` and passes the iteration.
    static func run(
        count: Int, prefix: String = "w", seed: UInt64, until deadline: ContinuousClock.Instant, scratch: URL,
        operation: @escaping @Sendable (_ tag: String, _ iteration: Int, SpawnedFunction, inout SplitMix64) throws -> SoakRecord
    ) async -> (records: [SoakRecord], errors: [String]) {
        let collected = Mutex<(records: [SoakRecord], errors: [String])>(([], []))
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for worker in 0..<count {
                group.enter()
                let thread = Thread {
                    defer { group.leave() }
                    var random = SplitMix64.forWorker(worker, seed: seed)
                    do {
                        let runner = try SpawnedFunction(scratch: scratch.appendingPathComponent("\(prefix)\(worker)"))
                        var iteration = 0
                        while ContinuousClock.now < deadline {
                            let record = try operation("\(prefix)\(worker)i\(iteration)", iteration, runner, &random)
                            collected.withLock { $0.records.append(record) }
                            iteration += 1
                        }
                    } catch {
                        collected.withLock { $0.errors.append("worker \(prefix)\(worker): \(error)") }
                    }
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
            group.notify(queue: .global()) { finished.resume() }
        }
        return collected.withLock { $0 }
    }
}

/// A small seeded generator (SplitMix64), so a failing run can be replayed with its seed.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// Worker `worker`'s own stream. Seeding it with `seed + worker × the step` would make
    /// it replay worker 0's draws shifted by `worker` (each draw adds that step), so the
    /// workers' inputs would be the same sequence; a mixed seed gives unrelated streams.
    static func forWorker(_ worker: Int, seed: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(worker) &* 0xD6E8_FEB8_6659_FD93))
        return SplitMix64(seed: mixer.next())
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
