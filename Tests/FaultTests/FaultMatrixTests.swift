import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulseTestSupport
import Testing

/// Every handler through every fault at every call position, one-shot and persistent: each
/// cell must end as a (recovered), b (refused, state unchanged) or c (completed by a
/// rerun), as one of the two documented Google outcomes: a* (disconnect's revoke failed,
/// reported) and v (connect with Google down, stored unverified, verified by the next
/// refresh run), or on Secrets Manager as t (a tag write refused: answered as stored, the
/// tags rewritten by the next refresh run); see ``CellOutcome``. The same matrix runs on each grant store (Secrets
/// Manager; DynamoDB with KMS): the table is printed and written to
/// `.build/reports/fault-matrix-<store>.txt`.
///
/// `FAULT_MATRIX_EVERY_CALL=1` plays every call of each fault-free sequence instead of
/// three to five of them, for a change to a call sequence: about 620 cells and four minutes on
/// Secrets Manager, 480 cells and three minutes on DynamoDB.
///
/// Not serialized: each matrix has benches of its own (their own moto_servers, proxies and
/// fake Google), and the two matrices, played one after the other, were the longest path
/// through the whole suite (448 s then 364 s of a 814 s run).
@Suite("fault matrix: handler x fault x call position")
struct FaultMatrixTests {
    static let faults = ProxyFault.all(latency: .milliseconds(150))
    static let everyCall = ProcessInfo.processInfo.environment["FAULT_MATRIX_EVERY_CALL"] == "1"
    /// `FAULT_MATRIX_SCENARIOS=security-events` (comma-separated prefixes of the scenarios'
    /// names) plays only those, for work on one handler; the cell count is then not checked.
    static let scenarios: [FaultScenario] = {
        guard let only = ProcessInfo.processInfo.environment["FAULT_MATRIX_SCENARIOS"], !only.isEmpty else { return FaultScenario.allCases }
        let prefixes = only.split(separator: ",").map(String.init)
        return FaultScenario.allCases.filter { scenario in prefixes.contains { scenario.rawValue.hasPrefix($0) } }
    }()

    @Test("every cell ends in a, a*, b, c, t or v on Secrets Manager")
    func secretsManager() async throws {
        try await matrix(on: .secretsManager)
    }

    @Test("every cell ends in a, a*, b, c or v on DynamoDB with KMS")
    func dynamoDB() async throws {
        try await matrix(on: .dynamoDB)
    }

    /// Benches per store, side by side, each playing whole scenarios from one queue: a cell
    /// mostly waits (a stall's time-out, a retry's delay, moto), and each bench counts only
    /// its own calls, so its positions stay exact. One lane per store took 230 s idle and
    /// 527 s beside CI's release build, its machine 30% busy.
    static let lanes = 3

    private func matrix(on store: FaultStore) async throws {
        let started = ContinuousClock.now
        let queue = ScenarioQueue(Self.scenarios)
        let played = try await withThrowingTaskGroup(of: [PlayedScenario].self) { group in
            for _ in 0..<Self.lanes {
                group.addTask {
                    let bench = try await FaultBench(store: store)
                    defer { bench.stop() }
                    var played: [PlayedScenario] = []
                    while let (index, scenario) = await queue.next() {
                        played.append(try await play(scenario, index: index, on: store, bench: bench))
                    }
                    return played
                }
            }
            return try await group.reduce(into: [PlayedScenario]()) { $0 += $1 }
        }
        var report = MatrixReport(store: store, faults: Self.faults)
        for run in played.sorted(by: { $0.index < $1.index }) {
            report.sequences.append((run.scenario.rawValue, run.calls))
            report.rows += run.rows
            report.counts.merge(run.counts, uniquingKeysWith: +)
            report.failures += run.failures
        }
        report.seconds = Double((ContinuousClock.now - started).components.seconds)
            + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
        let path = try report.write()
        print(report.render())
        print("fault matrix written to \(path)")
        for failure in report.failures { Issue.record("\(failure)") }
        // The matrix knows its shape: a lost position or half its calls is a failure, not a
        // smaller table (docs/RELIABILITY.md quotes these counts).
        #expect(Set(report.sequences.map(\.scenario)) == Set(Self.scenarios.map(\.rawValue)))
        if !Self.everyCall, Self.scenarios.count == FaultScenario.allCases.count {
            #expect(report.totalCells == Self.expectedCells[store], "\(report.totalCells) cells on \(store)")
        }
    }

    /// One scenario's rows, played on one bench: its fault-free reference, then every
    /// position x fault, one-shot and persistent. Cells are named `fm<scenario>-<n>`, each
    /// over users and (on DynamoDB) a table of its own.
    private func play(_ scenario: FaultScenario, index: Int, on store: FaultStore, bench: FaultBench) async throws -> PlayedScenario {
        var cellNumber = 0
        let nextCell = { () -> String in
            cellNumber += 1
            return "fm\(index)-\(cellNumber)"
        }
        let reference = try await referenceRun(scenario, bench: bench, cell: nextCell())
        let checker = MatrixChecker(bench: bench, scenario: scenario, reference: reference)
        var run = PlayedScenario(index: index, scenario: scenario, calls: reference.records.map { "\($0.operation)#\($0.occurrence)" })
        let steps = Self.everyCall ? nil : scenario.steps(on: store)
        let positions = steps.map { $0.map { (label: $0.label, position: Optional($0)) } } ?? reference.positions(everyCall: Self.everyCall)
        checkShape(of: scenario, on: store, calls: reference.records, played: positions.compactMap(\.position?.trigger))
        for (label, position) in positions {
            guard let position else {
                run.rows.append(.init(label: "\(scenario.rawValue) / \(label): none", cells: Array(repeating: "-", count: Self.faults.count * 2)))
                continue
            }
            var cells: [String] = []
            for persistent in [false, true] {
                for fault in Self.faults {
                    let name = "\(scenario.rawValue) / \(position) / \(fault) \(persistent ? "persistent" : "once")"
                    do {
                        let outcome = try await runCell(
                            scenario, checker: checker, bench: bench, cell: nextCell(), name: name,
                            fault: fault, trigger: position.trigger, persistent: persistent
                        )
                        run.counts[outcome, default: 0] += 1
                        cells.append(outcome.rawValue)
                    } catch let failure as CellFailure {
                        run.failures.append(failure)
                        cells.append("X")
                    }
                }
            }
            run.rows.append(.init(label: "\(scenario.rawValue) / \(position)", cells: cells))
        }
        return run
    }

    /// What one scenario's cells came to, for the store's report.
    private struct PlayedScenario: Sendable {
        let index: Int
        let scenario: FaultScenario
        let calls: [String]
        var rows: [MatrixReport.Row] = []
        var counts: [CellOutcome: Int] = [:]
        var failures: [CellFailure] = []
    }

    /// The scenarios still to play, handed out in order to whichever lane asks first.
    private actor ScenarioQueue {
        private var waiting: [(Int, FaultScenario)]

        init(_ scenarios: [FaultScenario]) { waiting = Array(scenarios.enumerated()).reversed() }

        func next() -> (Int, FaultScenario)? { waiting.popLast() }
    }

    /// Cells of the default matrix: positions x 8 faults x {one-shot, persistent}; 28
    /// positions on Secrets Manager, 31 on DynamoDB: each scenario's first call, a middle
    /// call of the store's own where there is one, its last write, its first Google call and
    /// on DynamoDB its first KMS call (17 and 20); and the receiver's named steps
    /// (``FaultScenario/steps(on:)``), 6 for tokens-revoked and 5 for account-purged.
    static let expectedCells: [FaultStore: Int] = [.secretsManager: 496, .dynamoDB: 560]

    /// The scenarios that reach Google (a first connection proves its refresh token,
    /// disconnect revokes, the refresh refreshes; the update sends none, so asks Google
    /// nothing) and, on DynamoDB, KMS (every one that reads or writes a sealed set): each
    /// must have those calls in its sequence and a fault played on them.
    private func checkShape(of scenario: FaultScenario, on store: FaultStore, calls: [FaultPlan.Record], played: [FaultTrigger]) {
        let trigger = { (record: FaultPlan.Record) in FaultTrigger.operation(record.operation, occurrence: record.occurrence) }
        let google = calls.filter { $0.proxy == FaultBench.googleProxyName }.map(trigger)
        let kms = calls.filter { FaultBench.kmsOperations.contains($0.operation) }.map(trigger)
        let reachesGoogle = scenario.reachesGoogle
        let reachesKMS = store == .dynamoDB && scenario != .userProfile
        #expect(google.isEmpty != reachesGoogle, "\(scenario.rawValue) on \(store): \(google.count) Google calls")
        #expect(kms.isEmpty != reachesKMS, "\(scenario.rawValue) on \(store): \(kms.count) KMS calls")
        if reachesGoogle { #expect(played.contains(where: google.contains), "\(scenario.rawValue) on \(store): no Google position") }
        if reachesKMS { #expect(played.contains(where: kms.contains), "\(scenario.rawValue) on \(store): no KMS position") }
        #expect(played.count >= min(calls.count, 2), "\(scenario.rawValue) on \(store): \(played.count) positions of \(calls.count) calls")
        // A named step must be the call it names in the fault-free sequence, not a guess.
        for step in scenario.steps(on: store) ?? [] {
            #expect(calls.contains { trigger($0) == step.trigger }, "\(scenario.rawValue) on \(store): no call \(step)")
        }
    }

    /// Between the matrix's cells, alone: tokens-revoked on Secrets Manager whose revoked
    /// value landed but whose tags did not (the tag write failing persistently). The change
    /// is stored, yet its listing still says `active`, which the refresh run does not read
    /// before the grant falls due (a refresh that renews only the access token leaves such
    /// tags on purpose). So the receiver, unlike the app's calls, does not answer as stored:
    /// c, a 503 that leaves the revoked value, then Google's redelivery finds it already
    /// revoked and tags it (`GoogleAccountEvents` retags a set already in the state the
    /// event asks for, as the disconnect's `markRevoked` does).
    @Test("a security event's revoked mark left untagged is tagged by the redelivery")
    func securityEventMarkWithoutTags() async throws {
        try await persistent(.tokensRevoked, cell: "fe", faults: [("TagResource", .status(503), .completedByRerun)])
    }

    /// Calls between the matrix's positions: the disconnect's revoked mark landed but its
    /// tags did not. Refused on every attempt, the disconnect answers as stored (t): the
    /// grant is deleted with tags stamped for another version, and the next refresh run
    /// restores it, finds the disconnect's own mark, tags it and deletes it again, so the
    /// deleted grant no longer keeps `active` tags (which a reconnect that restores it and
    /// then fails to write would show as connected). The mark's answer lost instead: a 503,
    /// and the rerun tags the set before deleting it (c). Secrets Manager only: DynamoDB
    /// writes the mark and its attributes in one call.
    @Test("a disconnect mark left untagged is tagged by the next refresh run or the rerun")
    func disconnectMarkWithoutTags() async throws {
        try await persistent(
            .disconnect, cell: "fu",
            faults: [("TagResource", .status(503), .storedTagsLate), ("PutSecretValue", .resetAfterForward, .completedByRerun)]
        )
    }

    /// Plays `scenario` on Secrets Manager with each of `faults` persistent from the first
    /// call of its operation, each cell expected to end as its outcome.
    private func persistent(
        _ scenario: FaultScenario, cell: String, faults: [(operation: String, fault: ProxyFault, outcome: CellOutcome)]
    ) async throws {
        let bench = try await FaultBench(store: .secretsManager)
        defer { bench.stop() }
        let reference = try await referenceRun(scenario, bench: bench, cell: "\(cell)1")
        let checker = MatrixChecker(bench: bench, scenario: scenario, reference: reference)
        for (number, (operation, fault, expected)) in faults.enumerated() {
            do {
                let outcome = try await runCell(
                    scenario, checker: checker, bench: bench, cell: "\(cell)\(number + 2)",
                    name: "\(scenario.rawValue) / \(operation) #1 / \(fault) persistent",
                    fault: fault, trigger: .operation(operation, occurrence: 1), persistent: true
                )
                #expect(outcome == expected, "\(operation) / \(fault)")
            } catch let failure as CellFailure {
                Issue.record("\(failure)")
            }
        }
    }

    /// The fault-free run: the call sequence from the proxy's journal, the answer, the state.
    private func referenceRun(_ scenario: FaultScenario, bench: FaultBench, cell: String) async throws -> Reference {
        let prepared = try await scenario.prepare(bench, cell: cell)
        bench.plan.reset()
        let result = await prepared.invoke()
        let records = bench.plan.records
        let checker = MatrixChecker(bench: bench, scenario: scenario, reference: Reference(result: result, snapshots: [], final: [], records: records))
        let snapshots = try await checker.snapshots(prepared)
        switch result {
        case .response(let response): try #require((200..<300).contains(response.status), "fault-free \(scenario.rawValue): \(result)")
        case .summary(let summary): try #require(summary.refreshed == FaultScenario.refreshGrants, "fault-free \(scenario.rawValue): \(result)")
        case .failed: Issue.record("fault-free \(scenario.rawValue) failed: \(result)")
        }
        return Reference(result: result, snapshots: snapshots, final: checker.normalized(snapshots), records: records)
    }

    private func runCell(
        _ scenario: FaultScenario, checker: MatrixChecker, bench: FaultBench, cell: String, name: String,
        fault: ProxyFault, trigger: FaultTrigger, persistent: Bool
    ) async throws -> CellOutcome {
        let prepared: FaultScenario.Prepared
        let before: [StoreSnapshot]
        do {
            prepared = try await scenario.prepare(bench, cell: cell)
            before = try await checker.snapshots(prepared)
        } catch {
            throw CellFailure(cell: name, reason: "setup failed: \(error)")
        }
        bench.plan.reset()
        bench.plan.inject(fault, at: trigger, persistent: persistent)
        let result = await prepared.invoke()
        let records = bench.plan.records
        bench.plan.clearFaults()
        guard records.contains(where: { $0.fault == fault }) else {
            throw CellFailure(cell: name, reason: "the fault was never played: the call sequence changed (\(records.map { "\($0.operation)#\($0.occurrence)" }))")
        }
        do {
            let after = try await checker.snapshots(prepared)
            return try await checker.classify(
                cell: name, fault: fault, persistent: persistent, result: result, before: before, after: after, records: records, prepared: prepared
            )
        } catch let failure as CellFailure {
            throw failure
        } catch {
            throw CellFailure(cell: name, reason: "checking failed: \(error)")
        }
    }
}
