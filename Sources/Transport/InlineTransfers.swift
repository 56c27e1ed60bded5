import Synchronization

/// The one transfer at a time in the process that may run on the calling thread instead
/// of a handle's queue (for clients configured with `inlineTransfers`).
///
/// A transfer on a queue costs two thread hand-offs (to the queue and back to the Swift
/// pool): two context switches, futex calls and Dispatch's and the executor's bookkeeping,
/// about a fifth of a warm API invocation's CPU. A process that serves one API request at a
/// time can afford to block a pool thread for its few short calls; a refresh run, with many
/// transfers in flight, cannot. So the composition root opts in per client (the API
/// functions' clients do), and even then one transfer at a time in the whole process runs
/// inline: concurrent ones (`async let`) still go to their queues, so at most one pool
/// thread is ever held by a transfer.
enum InlineTransfers {
    /// The one inline transfer at a time.
    private static let busy = Atomic<Bool>(false)

    /// Runs `body` inline when no other transfer runs inline; `nil` otherwise.
    static func run<T>(_ body: () -> T) -> T? {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return nil }
        defer { busy.store(false, ordering: .releasing) }
        return body()
    }
}
