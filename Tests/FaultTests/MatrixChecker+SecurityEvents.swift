import Foundation
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport

/// The receiver's cells. Google delivers a token again until it hears 202, so a 202 is a
/// promise that the event was fully acted on, and a 503 must leave nothing that a
/// redelivery cannot finish:
/// - 202 only with each of the account's grants as the fault-free delivery left it (a), or on
///   Secrets Manager a purge's deleted mark whose tags were refused, which the next refresh
///   run deletes again with its tags (t); a revoke or disable whose tags were refused is
///   answered 503, as the run would not read a grant whose tags still look connected;
/// - otherwise a clear 503, each grant of the account whole: as it was (b when all are), as
///   the event leaves it, or at one of the event's own steps (c); see ``checkEventStep``;
/// - the bystander grant (another account's) byte for byte unchanged, whatever happened;
/// - then, in every cell, Google's redelivery of the same token with the fault gone: 202
///   and every grant as the fault-free delivery left it; and one more delivery finds the
///   `jti` recorded and writes nothing: the event acts once.
extension MatrixChecker {
    func classifyDelivery(
        result: HandlerResult, before: [StoreSnapshot], after: [StoreSnapshot], records: [FaultPlan.Record], prepared: FaultScenario.Prepared,
        fail: (String) -> CellFailure
    ) async throws -> CellOutcome {
        guard case .response(let response) = result else { throw fail("the receiver gave no HTTP answer") }
        let targeted = after.indices.dropLast()
        guard after.last == before.last else { throw fail("the bystander grant, of another Google account, changed") }
        let atFinal = targeted.allSatisfy { scenario.normalized(after[$0]) == reference.final[$0] }

        let outcome: CellOutcome
        switch response.status {
        case 202 where !atFinal && !prepared.grants.writesAttributesWithValue && records.contains(where: { $0.operation == "TagResource" && $0.fault != nil }):
            // A purge's mark whose tags were refused, deleted: the refresh run finds the
            // deleted grant by its stale stamp and deletes it again with its tags.
            outcome = try await storedTagsLate(after: after, prepared: prepared, fail: fail)
        case 202:
            guard atFinal else { throw fail("202, so Google will not deliver it again, yet the event was not fully acted on") }
            outcome = .recovered
        case 503 where response.body.contains(#""error":"upstream_unavailable""#):
            if after == before {
                outcome = .refusedUnchanged
            } else {
                guard records.contains(where: { Self.writeOperations.contains($0.operation) && (200..<300).contains($0.upstreamStatus ?? 0) }) else {
                    throw fail("503 and the state changed, though no write reached the store")
                }
                for index in targeted {
                    try checkEventStep(before: before[index], after: after[index], final: reference.snapshots[index], atomic: prepared.grants.writesAttributesWithValue) {
                        fail("grant \(index): \($0)")
                    }
                }
                outcome = .completedByRerun
            }
        default:
            throw fail("neither 202 nor a clear 503: Google would drop or misread it")
        }
        try await redeliver(prepared: prepared, before: before, fail: fail)
        return outcome
    }

    /// One grant of the account after a 503: as it was (a version staged but not current
    /// reads as it was), as the event leaves it, or at a step of its own: the revoked mark,
    /// which a purge's redelivery deletes, and on a store that tags after writing the value
    /// (Secrets Manager, not `atomic`) that mark with the tags not yet rewritten, which the
    /// redelivery must tag. Never a value the event does not write.
    private func checkEventStep(
        before: StoreSnapshot, after: StoreSnapshot, final: StoreSnapshot, atomic: Bool, fail: (String) -> CellFailure
    ) throws {
        if scenario.normalized(after) == scenario.normalized(before) || scenario.normalized(after) == scenario.normalized(final) { return }
        guard after.exists, after.deletedDate == nil, let value = after.currentValue.flatMap(Self.canonicalJSON),
              var marked = before.currentValue.flatMap(Self.jsonObject) else {
            throw fail("deleted, or unreadable, without being the event's final state")
        }
        marked["status"] = "revoked"
        var markedTags = before.tags
        markedTags["paypulse:status"] = "revoked"
        markedTags["paypulse:refreshable"] = "false"
        guard value == Self.canonicalJSON(marked) else { throw fail("a value the event does not write") }
        guard after.tags == markedTags || (!atomic && after.tags == before.tags) else {
            throw fail("tags that describe neither the value nor the set before the event")
        }
    }

    /// Google's redelivery, fault-free: it must finish the event, and the one after it must
    /// find the event recorded and write nothing.
    private func redeliver(prepared: FaultScenario.Prepared, before: [StoreSnapshot], fail: (String) -> CellFailure) async throws {
        bench.plan.clearFaults()
        let again = await prepared.invoke()
        let settled = try await snapshots(prepared)
        guard case .response(let response) = again, response.status == 202, normalized(settled) == reference.final, settled.last == before.last else {
            throw fail("the redelivery did not finish the event: \(again); state after it: \(settled)")
        }
        bench.plan.reset()
        let once = await prepared.invoke()
        let writes = bench.plan.records.filter { Self.writeOperations.contains($0.operation) }
        guard case .response(let last) = once, last.status == 202, writes.isEmpty, try await snapshots(prepared) == settled else {
            throw fail("a delivery after the event was acted on and recorded acted again: \(once); writes \(writes.map(\.operation))")
        }
    }
}
