import Foundation
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport

/// The fault-free run of a scenario: its call sequence and what it answered and left.
struct Reference {
    var result: HandlerResult
    /// What the cell watches, as the fault-free run left it.
    var snapshots: [StoreSnapshot]
    /// ``snapshots`` normalized.
    var final: [String]
    var records: [FaultPlan.Record]

    /// First call, a middle call and the last write (the last call when nothing writes), a
    /// `nil` middle when none is strictly between them; then the first call to Google when
    /// none of those is one, so Google's faults are always played (no entry without one),
    /// and likewise the first call to KMS (DynamoDB grants only). With `everyCall`, every
    /// call of the sequence instead.
    func positions(everyCall: Bool) -> [(label: String, position: CallPosition?)] {
        guard let first = records.first else { return [] }
        let trigger = { (record: FaultPlan.Record) in FaultTrigger.operation(record.operation, occurrence: record.occurrence) }
        if everyCall {
            return records.map { ("call \($0.index)", CallPosition(label: "call \($0.index)", trigger: trigger($0))) }
        }
        let lastIndex = records.lastIndex { MatrixChecker.writeOperations.contains($0.operation) } ?? records.count - 1
        let last = records[lastIndex]
        let google = records.firstIndex { $0.proxy == FaultBench.googleProxyName }
        let kms = records.firstIndex { FaultBench.kmsOperations.contains($0.operation) }
        // The middle is a call of the store's own: the first Google and KMS calls have rows of
        // their own. Which call sits mid-sequence in a run over concurrent grants depends on
        // how they interleave; letting it be the Google call cost the matrix a row on a loaded
        // machine (288 cells for 304), so the shape would depend on the load.
        var middleIndex = lastIndex / 2
        while middleIndex == google || middleIndex == kms { middleIndex += 1 }
        let hasMiddle = middleIndex > 0 && middleIndex < lastIndex
        let lastLabel = MatrixChecker.writeOperations.contains(last.operation) ? "last write" : "last call"
        var positions: [(label: String, position: CallPosition?)] = [
            ("first", CallPosition(label: "first", trigger: trigger(first))),
            ("middle", hasMiddle ? CallPosition(label: "middle", trigger: trigger(records[middleIndex])) : nil),
            (lastLabel, CallPosition(label: lastLabel, trigger: trigger(last))),
        ]
        let played = [0, lastIndex] + (hasMiddle ? [middleIndex] : [])
        if let google, !played.contains(google) {
            positions.append(("Google", CallPosition(label: "Google", trigger: trigger(records[google]))))
        }
        if let kms, !played.contains(kms) {
            positions.append(("KMS", CallPosition(label: "KMS", trigger: trigger(records[kms]))))
        }
        return positions
    }
}

/// Classifies one faulted run into a, a*, b, c, t or v, or fails it naming the cell (the
/// receiver's cells in `MatrixChecker+SecurityEvents.swift`).
struct MatrixChecker {
    /// Every call that changes what a store holds, Secrets Manager's and DynamoDB's. KMS's
    /// `GenerateDataKey` and `Decrypt` change nothing stored: they are not writes.
    static let writeOperations: Set<String> = [
        "CreateSecret", "PutSecretValue", "UpdateSecretVersionStage", "TagResource", "UntagResource", "DeleteSecret",
        "RestoreSecret", "PutItem", "UpdateItem", "DeleteItem",
    ]

    let bench: FaultBench
    let scenario: FaultScenario
    let reference: Reference

    func snapshots(_ prepared: FaultScenario.Prepared) async throws -> [StoreSnapshot] {
        var result: [StoreSnapshot] = []
        for watched in prepared.watched { result.append(try await bench.snapshot(watched, grants: prepared.grants)) }
        return result
    }

    func normalized(_ snapshots: [StoreSnapshot]) -> [String] { snapshots.map(scenario.normalized) }

    /// Classifies a run; `rerun` sends the same request again without faults.
    func classify(
        cell: String, fault: ProxyFault, persistent: Bool, result: HandlerResult, before: [StoreSnapshot], after: [StoreSnapshot],
        records: [FaultPlan.Record], prepared: FaultScenario.Prepared
    ) async throws -> CellOutcome {
        let wroteToStore = records.contains { Self.writeOperations.contains($0.operation) && (200..<300).contains($0.upstreamStatus ?? 0) }
        let atFinal = normalized(after).enumerated().map { $0.element == reference.final[$0.offset] }
        let unchanged = zip(after, before).map { $0 == $1 }
        let fail = { (reason: String) in
            CellFailure(cell: cell, reason: "\(reason); answer: \(result); before: \(before); after: \(after)")
        }
        if scenario.isSecurityEvent {
            return try await classifyDelivery(result: result, before: before, after: after, records: records, prepared: prepared, fail: fail)
        }

        switch (result, reference.result) {
        case (.response(let response), .response(let expected)):
            if let googleDown = prepared.googleDown, persistent, Self.googleNeverAnswered(records) {
                return try await storedUnverified(googleDown, response: response, before: before, after: after, prepared: prepared, fail: fail)
            }
            if response.status == expected.status, response.body == expected.body, !atFinal.contains(false) { return .recovered }
            if response.status == expected.status, response.body == expected.body, !prepared.grants.writesAttributesWithValue,
               records.contains(where: { $0.operation == "TagResource" && $0.fault != nil }) {
                return try await storedTagsLate(after: after, prepared: prepared, fail: fail)
            }
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
            if scenario == .disconnect {
                try checkDisconnectStep(
                    before: before[0], after: after[0], records: records, atomic: prepared.grants.writesAttributesWithValue, fail: fail
                )
            } else {
                try checkReaderSees(before: before, after: after, fail: fail)
            }
            return try await rerun(cell: cell, prepared: prepared, fail: fail)

        case (.summary(let summary), .summary(let expected)):
            // Per grant: at the fault-free final state, untouched, or partly written. The
            // summary may call a grant transient whose write landed unheard (it is then at
            // final or partial), never call one refreshed that is not at final.
            if summary.refreshed == expected.refreshed, summary.transient_failures == 0, atFinal.contains(false),
               !prepared.grants.writesAttributesWithValue, records.contains(where: { $0.operation == "TagResource" && $0.fault != nil }) {
                return try await storedTagsLate(after: after, prepared: prepared, fail: fail)
            }
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
            try checkReaderSees(before: before, after: after, fail: fail)
            return try await rerun(cell: cell, prepared: prepared, fail: fail)

        case (.failed(let transient, _), .summary):
            guard transient else { throw fail("the invocation failed for a non-transient reason") }
            if !unchanged.contains(false) { return .refusedUnchanged }
            guard wroteToStore else { throw fail("grants changed though no write reached the store") }
            try checkReaderSees(before: before, after: after, fail: fail)
            return try await rerun(cell: cell, prepared: prepared, fail: fail)

        default:
            throw fail("an answer of another kind than the fault-free run's (\(reference.result))")
        }
    }

    /// Whether Google's token endpoint was called and never answered us: every call hit a
    /// fault that withholds the answer (latency only delays it).
    static func googleNeverAnswered(_ records: [FaultPlan.Record]) -> Bool {
        let calls = records.filter { $0.proxy == FaultBench.googleProxyName && $0.operation == "token" }
        return !calls.isEmpty && calls.allSatisfy { record in
            guard let fault = record.fault else { return false }
            if case .latency = fault { return false }
            return true
        }
    }

    /// (v): Google down at connect. The answer is 201 with the app's email and scope, the set
    /// is stored exactly as sent and unverified, nothing else changed; then a refresh run with
    /// Google back verifies it to the fault-free connect's state. The one field that may
    /// differ is the email: the app's stays, where a verified connect stores Google's (none,
    /// for a grant without `openid`).
    private func storedUnverified(
        _ expected: FaultScenario.GoogleDown, response: APIResponse, before: [StoreSnapshot], after: [StoreSnapshot],
        prepared: FaultScenario.Prepared, fail: (String) -> CellFailure
    ) async throws -> CellOutcome {
        guard response.status == 201, Self.canonicalJSON(response.body) == Self.canonicalJSON(expected.answer) else {
            throw fail("Google down: not the 201 with the app's email and scope (\(expected.answer))")
        }
        // Spelled out without a tag stamp: where the store stamps, the tags must be the value's own.
        var stored = after[0]
        guard stored.stamp != .stale else { throw fail("Google down: the set stored with tags stamped for another version") }
        stored.stamp = nil
        guard stored.normalized(scenario.normalizeValue) == expected.state.normalized(scenario.normalizeValue),
              after.dropFirst() == before.dropFirst() else {
            throw fail("Google down: not the set exactly as the app sent it, unverified, with nothing else changed; expected \(expected.state)")
        }
        bench.plan.clearFaults()
        let run = await expected.refreshRun()
        let settled = try await snapshots(prepared)
        guard case .summary(let summary) = run, summary.due == 1, summary.refreshed == 1, summary.transient_failures == 0 else {
            throw fail("the refresh run after Google came back did not verify the grant: \(run)")
        }
        let withoutEmail = { (object: [String: Any]) in
            var object = scenario.normalizeValue(object)
            object["google_email"] = nil
            return object
        }
        let email = settled[0].currentValue.flatMap(Self.jsonObject)?["google_email"] as? String
        guard zip(settled, reference.snapshots).allSatisfy({ $0.normalized(withoutEmail) == $1.normalized(withoutEmail) }), email == expected.email else {
            throw fail("the refresh run did not verify the grant to the fault-free connect's state: \(settled); fault-free: \(reference.snapshots)")
        }
        return .storedUnverified
    }

    /// A disconnect marks the set revoked, then deletes it, so a 503 after a write landed
    /// leaves one of its steps: the set as it was (a pending version at most), the revoked
    /// mark (its tags not yet rewritten only while no delete was sent), or the marked set
    /// deleted. Never a set changed otherwise, or deleted without the mark.
    ///
    /// The tags are the grant's listing attributes. On a store that writes them with the
    /// value in one write (DynamoDB) the first two steps have no in-between: no pending
    /// version a reader does not see, no mark without its tags, so neither is accepted there
    /// (`atomic`).
    private func checkDisconnectStep(
        before: StoreSnapshot, after: StoreSnapshot, records: [FaultPlan.Record], atomic: Bool, fail: (String) -> CellFailure
    ) throws {
        guard let value = before.currentValue, var object = Self.jsonObject(value) else { throw fail("no token set before the disconnect") }
        object["status"] = "revoked"
        let markedValue = Self.canonicalJSON(object)
        var markedTags = before.tags
        markedTags["paypulse:status"] = "revoked"
        markedTags["paypulse:refreshable"] = "false"
        let afterValue = after.currentValue.flatMap(Self.canonicalJSON)
        let live = after.exists && after.deletedDate == nil
        let deleteSent = records.contains { $0.operation == "DeleteSecret" }
        let stepsBetween = !atomic

        let asItWas = stepsBetween && !deleteSent && live && afterValue == Self.canonicalJSON(value) && after.tags == before.tags
        let marked = live && afterValue == markedValue
            && (after.tags == markedTags || (stepsBetween && !deleteSent && after.tags == before.tags))
        let deleted = after.exists && after.deletedDate != nil && after.tags == markedTags
        guard asItWas || marked || deleted else {
            throw fail("disconnect left neither the set as it was, nor the revoked mark, nor the marked set deleted")
        }
    }

    /// (c) for store-tokens and the refresh: between the failed call and its rerun, a reader
    /// of each grant sees the token set as it was or the fault-free one, never a third value,
    /// and a live grant whose tags still read connected.
    private func checkReaderSees(before: [StoreSnapshot], after: [StoreSnapshot], fail: (String) -> CellFailure) throws {
        let value = { (snapshot: StoreSnapshot) -> String? in
            snapshot.currentValue.flatMap(Self.jsonObject).map(scenario.normalizeValue).flatMap(Self.canonicalJSON)
        }
        // Only the grants: a scenario also watches the client-ID secret, which has no tags.
        for (index, seen) in after.enumerated() where reference.snapshots[index].tags["paypulse:status"] != nil {
            let allowed = [value(before[index]), value(reference.snapshots[index])]
            guard seen.exists, seen.deletedDate == nil, allowed.contains(value(seen)) else {
                throw fail("grant \(index): a reader before the rerun sees neither the set as it was nor the fault-free one")
            }
            guard seen.tags["paypulse:status"] == "active" else {
                throw fail("grant \(index): before the rerun its tags do not read connected")
            }
        }
    }

    /// (t) on Secrets Manager: the fault-free answer although a tag write was refused. The
    /// change is stored: each grant's value is the fault-free one (a grant whose tags did not
    /// land keeps older tags, stamped for another version). Then one fault-free refresh run
    /// over the cell's grants must leave each listing telling what its value says: the
    /// fault-free state, or (a live grant) tags that still describe the value, as a refresh
    /// that renews only the access token leaves them.
    func storedTagsLate(after: [StoreSnapshot], prepared: FaultScenario.Prepared, fail: (String) -> CellFailure) async throws -> CellOutcome {
        let valueOnly = { (snapshot: StoreSnapshot) -> String in
            var snapshot = snapshot
            (snapshot.tags, snapshot.stamp) = ([:], nil)
            return scenario.normalized(snapshot)
        }
        for (index, seen) in after.enumerated() where valueOnly(seen) != valueOnly(reference.snapshots[index]) {
            throw fail("grant \(index): the fault-free answer, yet not the fault-free value")
        }
        bench.plan.clearFaults()
        let run = await prepared.refreshRun()
        guard case .summary(let summary) = run, summary.transient_failures == 0, summary.conflicts == 0, summary.remaining == 0 else {
            throw fail("the refresh run after the refused tag write did not run clean: \(run)")
        }
        let settled = try await snapshots(prepared)
        for (index, seen) in settled.enumerated() where scenario.normalized(seen) != reference.final[index] {
            guard valueOnly(seen) == valueOnly(reference.snapshots[index]), seen.exists, seen.deletedDate == nil,
                  let value = seen.currentValue, let set = try? GmailTokenSet.decode(value), TokenSetTags.stillDescribe(seen.tags, set) else {
                throw fail("grant \(index): after the refresh run its listing still does not tell what its value says: \(seen)")
            }
        }
        return .storedTagsLate
    }

    /// A JSON document as an object, `nil` when it is not one.
    static func jsonObject(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// JSON with sorted keys, so documents compare whatever their key order.
    static func canonicalJSON(_ text: String) -> String? { jsonObject(text).flatMap(canonicalJSON) }

    /// `object` with sorted keys.
    static func canonicalJSON(_ object: [String: Any]) -> String? {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
    }

    /// (c): the same request again, without faults, must reach the fault-free final state.
    private func rerun(cell: String, prepared: FaultScenario.Prepared, fail: (String) -> CellFailure) async throws -> CellOutcome {
        bench.plan.clearFaults()
        let again = await prepared.invoke()
        let settled = try await snapshots(prepared)
        let answered: Bool =
            switch (again, reference.result) {
            case (.response(let response), .response(let expected)):
                // A disconnect whose delete landed unheard finds nothing connected on the
                // rerun: its documented answer is 404.
                response.status == expected.status
                    || (scenario == .disconnect && response.status == 404 && response.body.contains(#""error":"not_found""#))
            case (.summary(let summary), .summary):
                // The rerun itself ran clean: it finished what the faulted run left.
                summary.transient_failures == 0 && summary.conflicts == 0 && summary.revoked == 0 && summary.rejected == 0
                    && summary.remaining == 0
            default: false
            }
        guard answered, normalized(settled) == reference.final else {
            throw fail("a fault-free rerun did not converge: \(again); state after rerun: \(settled)")
        }
        return .completedByRerun
    }
}
