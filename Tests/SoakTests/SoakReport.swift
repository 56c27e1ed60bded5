import Foundation
import PayPulseDomain
import Synchronization

/// The figures of one soak phase, printed and written to `.build/reports/soak.txt`.
struct SoakReport {
    var backend: String
    var seed: UInt64
    var workers: Int
    var seconds: Double
    var records: [SoakRecord]
    var tokenCalls: Int
    var invalidGrants: Int
    var revokeCalls: Int
    var violations: [Violation]
    var harnessErrors: [String]

    /// Operations the workers ran (seeds excluded).
    var operations: [SoakRecord] { records.filter { !$0.isSeed } }

    var text: String {
        var lines = ["soak on \(backend): \(operations.count) operations by \(workers) workers in \(String(format: "%.1f", seconds)) s "
            + "(\(Int((Double(operations.count) / seconds * 60).rounded())) per minute), 50 users, seed \(seed)"]
        for function in SoakFunction.allCases {
            let runs = operations.filter { $0.function == function }
            let outcomes = Dictionary(grouping: runs, by: \.outcome).map { "\($0.key): \($0.value.count)" }.sorted()
            lines.append("  \(function.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(runs.count) [\(outcomes.joined(separator: ", "))]")
        }
        let summaries = operations.compactMap(\.summary)
        func total(_ field: KeyPath<RefreshSummary, Int>) -> Int { summaries.reduce(0) { $0 + $1[keyPath: field] } }
        lines.append("  refresh totals: due \(total(\.due)), refreshed \(total(\.refreshed)), conflicts \(total(\.conflicts)), "
            + "revoked \(total(\.revoked)), transient_failures \(total(\.transient_failures)), skipped \(total(\.skipped))")
        lines.append("  fake Google: \(tokenCalls) token calls, \(invalidGrants) invalid_grant answers, \(revokeCalls) revoke calls")
        let abnormal = operations.filter { $0.signal != nil || $0.exitStatus != 0 || $0.httpStatus == 500 }
        lines.append("  killed by a signal or failed: \(abnormal.count); answered 500: \(operations.filter { $0.httpStatus == 500 }.count)")
        lines.append("  invariant violations: \(violations.count)")
        lines += violations.prefix(20).map { "    \($0)" }
        lines += harnessErrors.map { "  harness error: \($0)" }
        return lines.joined(separator: "\n")
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
