import Foundation
import PayPulseDomain
import Synchronization

/// The figures of one soak phase, printed and written to `.build/reports/soak.txt`.
struct SoakReport {
    var backend: String
    var seed: UInt64
    var workers: Int
    var stormWorkers: Int
    var seconds: Double
    var records: [SoakRecord]
    /// Reads of secrets the harness took during the run, and how many failed.
    var samples: [Observation]
    var samplingErrors: Int
    /// Deleted secrets a failing reconnect of the harness restored at the end.
    var restored: Int
    /// Users whose deleted secret was tagged connected before that reconnect repaired it.
    var deletedTaggedConnected: [Int]
    var tokenCalls: Int
    var invalidGrants: Int
    var revokeCalls: Int
    var violations: [Violation]
    var harnessErrors: [String]

    /// Operations the workers ran (seeds excluded).
    var operations: [SoakRecord] { records.filter { !$0.isSeed } }

    /// store-tokens calls that answered 409 (the target is none).
    var storeConflicts: [SoakRecord] { operations.filter { $0.function == .storeTokens && $0.httpStatus == 409 } }

    var text: String {
        var lines = ["soak on \(backend): \(operations.count) operations by \(workers) workers and \(stormWorkers) refresh-storm workers "
            + "in \(String(format: "%.1f", seconds)) s (\(Int((Double(operations.count) / seconds * 60).rounded())) per minute), 50 users, seed \(seed)"]
        for function in SoakFunction.allCases {
            let runs = operations.filter { $0.function == function }
            let outcomes = Dictionary(grouping: runs, by: \.outcome).map { "\($0.key): \($0.value.count)" }.sorted()
            lines.append("  \(function.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(runs.count) [\(outcomes.joined(separator: ", "))]")
        }
        func count(_ function: SoakFunction, _ status: Int) -> Int { operations.filter { $0.function == function && $0.httpStatus == status }.count }
        let events = operations.filter { $0.function == .securityEvents }
        lines.append("  security events: " + SentEvent.Kind.allCases.map { kind in "\(kind) \(events.filter { $0.event?.kind == kind }.count)" }.joined(separator: ", ")
            + "; \(events.filter { $0.event?.redelivery == true }.count) delivered again, \(events.filter(\.eventUnrecorded).count) acted on but not recorded")
        lines.append("  store-tokens 409: \(storeConflicts.count) (target 0), 503: \(count(.storeTokens, 503)); "
            + "disconnect 409: \(count(.disconnect, 409)), 503: \(count(.disconnect, 503)); "
            + "stored unverified (Google not reached): \(operations.filter(\.storedUnverified).count)")
        let summaries = operations.compactMap(\.summary)
        let stormSummaries = operations.filter(\.isStorm).compactMap(\.summary)
        func total(_ field: KeyPath<RefreshSummary, Int>, of summaries: [RefreshSummary]) -> Int { summaries.reduce(0) { $0 + $1[keyPath: field] } }
        lines.append("  refresh totals: due \(total(\.due, of: summaries)), refreshed \(total(\.refreshed, of: summaries)), "
            + "conflicts \(total(\.conflicts, of: summaries)), revoked \(total(\.revoked, of: summaries)), "
            + "transient_failures \(total(\.transient_failures, of: summaries)), skipped \(total(\.skipped, of: summaries))")
        lines.append("  of which the storm: \(stormSummaries.count) runs, refreshed \(total(\.refreshed, of: stormSummaries)), "
            + "conflicts \(total(\.conflicts, of: stormSummaries))")
        let absent = samples.filter { if case .absent = $0.state { true } else { false } }.count
        lines.append("  sampled during the run: \(samples.count) reads (\(absent) absent, \(samples.filter { $0.connected == true }.count) connected), "
            + "\(samplingErrors) failed")
        lines.append("  failed reconnects after the run: \(restored) deleted grants restored, "
            + "\(deletedTaggedConnected.count) of them tagged connected while deleted\(deletedTaggedConnected.isEmpty ? "" : " (users \(deletedTaggedConnected.map(String.init).joined(separator: ", ")))")")
        lines.append("  fake Google: \(tokenCalls) token calls, \(invalidGrants) invalid_grant answers, \(revokeCalls) revoke calls")
        let abnormal = operations.filter { $0.signal != nil || $0.exitStatus != 0 || $0.httpStatus == 500 }
        lines.append("  killed by a signal or failed: \(abnormal.count); answered 500: \(operations.filter { $0.httpStatus == 500 }.count)")
        let byRule = Dictionary(grouping: violations, by: \.rule).map { "\($0.key): \($0.value.count)" }.sorted()
        lines.append("  invariant violations: \(violations.count)\(byRule.isEmpty ? "" : " [" + byRule.joined(separator: "; ") + "]")")
        lines += violations.prefix(20).map { "    \($0)" }
        lines += harnessErrors.map { "  harness error: \($0)" }
        lines += histories
        return lines.joined(separator: "\n")
    }

    /// The calls and samples of each user a violation names, in start order, so that a
    /// run no seed can replay still shows what overlapped: calls by name, the set a sample
    /// read by its store-tokens call and status (never a token), times in ms from the first.
    private var histories: [String] {
        let users = Set(violations.compactMap(\.user)).sorted().prefix(3)
        guard let origin = (records.map(\.started) + samples.map(\.started)).min() else { return [] }
        let ms = { (instant: ContinuousClock.Instant) in
            let elapsed = instant - origin
            return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        }
        var lines: [String] = []
        for user in users {
            lines.append("  history of user \(user) (ms from the run's first call):")
            var entries: [(start: Int64, text: String)] = records.filter { $0.user == user }.map { record in
                let what = record.event.map { "\($0.kind)\($0.redelivery ? " again" : "") iat \(Int64($0.issuedAt.timeIntervalSince1970))" } ?? record.sent.map { "call \($0.call)" } ?? ""
                let said = record.handlerSaid.map { " (\($0))" } ?? (record.storedUnverified ? " (stored unverified)" : "")
                return (ms(record.started), "\(record.function.rawValue) \(record.tag) \(what) \(ms(record.started))-\(ms(record.ended)): \(record.outcome)\(said)")
            }
            entries += samples.filter { $0.user == user }.map { sample in
                let state: String
                switch sample.state {
                case .absent: state = "absent"
                case .present(let set, _):
                    state = "status \(set.status.rawValue), verified \(set.verified), access token of \(Self.call(of: set, in: records) ?? "no call")"
                        + ", proved at \(set.provedAtText)"
                }
                return (ms(sample.started), "sample \(ms(sample.started))-\(ms(sample.ended)): \(state)")
            }
            lines += entries.sorted { $0.start < $1.start }.map { "    \($0.text)" }
        }
        return lines
    }

    /// The store-tokens call whose access token `set` holds, if one sent it.
    private static func call(of set: GmailTokenSet, in records: [SoakRecord]) -> String? {
        records.first { $0.sent?.accessToken == set.accessToken }?.sent.map { $0.call } ?? (set.accessToken.isEmpty ? nil : "a refresh")
    }

    /// The report sections written so far in this test process, by backend.
    private static let sections = Mutex<[String: String]>([:])

    /// Adds this phase to `.build/reports/soak.txt` (rewritten with every phase so far).
    func write() throws {
        let all = Self.sections.withLock {
            $0[backend] = text
            return $0.sorted { $0.key < $1.key }.map(\.value).joined(separator: "\n\n") + "\n"
        }
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/reports")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try all.write(to: folder.appendingPathComponent("soak.txt"), atomically: true, encoding: .utf8)
    }
}
