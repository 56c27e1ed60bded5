import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulseTestSupport

/// The fault-free run of a scenario: its call sequence and what it answered and left.
struct Reference {
    var result: HandlerResult
    var final: [String]
    var records: [FaultPlan.Record]

    /// First call, a middle call and the last write (the last call when nothing writes);
    /// a middle that is not strictly between them is left out.
    var positions: [CallPosition?] {
        guard let first = records.first else { return [] }
        let lastIndex = records.lastIndex { MatrixChecker.writeOperations.contains($0.operation) } ?? records.count - 1
        let last = records[lastIndex]
        let middleIndex = lastIndex / 2
        let trigger = { (record: FaultPlan.Record) in FaultTrigger.operation(record.operation, occurrence: record.occurrence) }
        let lastLabel = MatrixChecker.writeOperations.contains(last.operation) ? "last write" : "last call"
        return [
            CallPosition(label: "first", trigger: trigger(first)),
            middleIndex > 0 && middleIndex < lastIndex ? CallPosition(label: "middle", trigger: trigger(records[middleIndex])) : nil,
            CallPosition(label: lastLabel, trigger: trigger(last)),
        ]
    }
}

/// Classifies one faulted run into a, a*, b or c, or fails it naming the cell.
struct MatrixChecker {
    static let writeOperations: Set<String> = [
        "CreateSecret", "PutSecretValue", "UpdateSecretVersionStage", "TagResource", "UntagResource", "DeleteSecret",
        "RestoreSecret", "PutItem", "UpdateItem", "DeleteItem",
    ]

    let bench: FaultBench
    let scenario: FaultScenario
    let reference: Reference

    func snapshots(_ names: [String]) async throws -> [SecretSnapshot] {
        var result: [SecretSnapshot] = []
        for name in names { result.append(try await SecretSnapshot.read(name, from: bench.directSecrets)) }
        return result
    }

    func normalized(_ snapshots: [SecretSnapshot]) -> [String] { snapshots.map { $0.normalized(scenario.normalizeValue) } }

    /// Classifies a run; `rerun` sends the same request again without faults.
    func classify(
        cell: String, fault: ProxyFault, persistent: Bool, result: HandlerResult, before: [SecretSnapshot], after: [SecretSnapshot],
        records: [FaultPlan.Record], prepared: FaultScenario.Prepared
    ) async throws -> CellOutcome {
        let wroteToStore = records.contains { Self.writeOperations.contains($0.operation) && (200..<300).contains($0.upstreamStatus ?? 0) }
        let atFinal = normalized(after).enumerated().map { $0.element == reference.final[$0.offset] }
        let unchanged = zip(after, before).map { $0 == $1 }
        let fail = { (reason: String) in
            CellFailure(cell: cell, reason: "\(reason); answer: \(result); before: \(before); after: \(after)")
        }

        switch (result, reference.result) {
        case (.response(let response), .response(let expected)):
            if response.status == expected.status, response.body == expected.body, !atFinal.contains(false) { return .recovered }
            if scenario == .disconnect, persistent, response.status == expected.status, !atFinal.contains(false),
               records.contains(where: { $0.operation == "revoke" && $0.fault != nil }),
               response.body == expected.body.replacingOccurrences(of: #""revoked_at_google":true"#, with: #""revoked_at_google":false"#) {
                return .recoveredRevokeReported
            }
            guard response.status == 503, response.body.contains(#""error":"upstream_unavailable""#) else {
                throw fail("neither the fault-free answer (HTTP \(expected.status)) nor a clear 503")
            }
            if !unchanged.contains(false) { return .refusedUnchanged }
            guard wroteToStore else { throw fail("503 and the state changed, though no write reached the store") }
            return try await rerun(cell: cell, prepared: prepared, fail: fail)

        case (.summary(let summary), .summary(let expected)):
            // Per grant: at the fault-free final state, untouched, or partly written. The
            // summary may call a grant transient whose write landed unheard (it is then at
            // final or partial), never call one refreshed that is not at final.
            let final = atFinal.filter { $0 }.count
            let untouched = unchanged.filter { $0 }.count
            let partial = after.count - final - untouched
            guard summary.due == expected.due, summary.scanned == expected.scanned, summary.conflicts == 0, summary.revoked == 0,
                  summary.remaining == 0, summary.refreshed + summary.transient_failures == expected.due, summary.refreshed <= final else {
                throw fail("the summary does not match the grants: \(final) at the final state, \(untouched) untouched, \(partial) partly written")
            }
            if summary.transient_failures == 0 { return .recovered }
            if partial == 0, final == summary.refreshed { return .refusedUnchanged }
            guard wroteToStore else { throw fail("grants changed though no write reached the store") }
            return try await rerun(cell: cell, prepared: prepared, fail: fail)

        case (.failed(let transient, _), .summary):
            guard transient else { throw fail("the invocation failed for a non-transient reason") }
            if !unchanged.contains(false) { return .refusedUnchanged }
            guard wroteToStore else { throw fail("grants changed though no write reached the store") }
            return try await rerun(cell: cell, prepared: prepared, fail: fail)

        default:
            throw fail("an answer of another kind than the fault-free run's (\(reference.result))")
        }
    }

    /// (c): the same request again, without faults, must reach the fault-free final state.
    private func rerun(cell: String, prepared: FaultScenario.Prepared, fail: (String) -> CellFailure) async throws -> CellOutcome {
        bench.plan.clearFaults()
        let again = await prepared.invoke()
        let settled = try await snapshots(prepared.secretNames)
        let answered: Bool =
            switch (again, reference.result) {
            case (.response(let response), .response(let expected)):
                // A disconnect whose delete landed unheard finds nothing connected on the
                // rerun: its documented answer is 404.
                response.status == expected.status
                    || (scenario == .disconnect && response.status == 404 && response.body.contains(#""error":"not_found""#))
            case (.summary, .summary): true
            default: false
            }
        guard answered, normalized(settled) == reference.final else {
            throw fail("a fault-free rerun did not converge: \(again); state after rerun: \(settled)")
        }
        return .completedByRerun
    }
}
