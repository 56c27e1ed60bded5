import PayPulsePorts

/// Copies every grant from one ``GrantStore`` to another (Secrets Manager to the DynamoDB
/// token table, or back), then reads each copy back to verify it.
///
/// The source is the authority: a grant the target lacks is created there, one it holds
/// with another value is replaced by a compare-and-swap from the version it holds, one it
/// holds with the same value has its attributes set again. So a run is idempotent, and a
/// second run just before switching `PAYPULSE_STORE` picks up what writers changed in the
/// source meanwhile. Never run it once writers use the target: the source would win.
///
/// A grant scheduled for deletion is not copied: its value cannot be read without restoring
/// it, its grant was revoked at Google, and it expires with its recovery window.
public struct GrantMigration: Sendable {
    /// What a run did, per grant.
    public struct Report: Sendable, Equatable, Codable {
        /// Grants listed in the source.
        public var listed = 0
        /// Created in the target.
        public var copied = 0
        /// Replaced in the target, which held another value.
        public var updated = 0
        /// Already in the target with the same value (attributes set again).
        public var unchanged = 0
        /// Scheduled for deletion in the source (or deleted while the run read it): not copied.
        public var skippedDeleted = 0
        /// Read back from the target equal to the source.
        public var verified = 0
        /// The users whose copy failed or did not verify, with why (no value in the text).
        public var failures: [String] = []

        /// Whether every grant listed was copied and verified or skipped as deleted.
        public var complete: Bool { failures.isEmpty && verified + skippedDeleted == listed }
    }

    let source: any GrantStore
    let target: any GrantStore
    let userPrefix: String
    let concurrency: Int

    /// Creates a migration of the grants whose user id starts with `userPrefix` (all by default).
    public init(from source: any GrantStore, to target: any GrantStore, userPrefix: String = "", concurrency: Int = 8) {
        self.source = source
        self.target = target
        self.userPrefix = userPrefix
        self.concurrency = max(concurrency, 1)
    }

    private enum Outcome: Sendable {
        case copied, updated, unchanged, deleted
        case failed(String)
    }

    /// Runs once over every page of the source's listing.
    /// - Throws: `StoreError` when the listing itself fails; a failing grant is reported instead.
    public func run() async throws -> Report {
        var report = Report()
        var cursor: String?
        repeat {
            let page = try await source.list(userPrefix: userPrefix, includeDeleted: true, cursor: cursor, limit: 100)
            report.listed += page.grants.count
            let outcomes = await migrate(page.grants)
            for outcome in outcomes {
                switch outcome {
                case .copied: report.copied += 1; report.verified += 1
                case .updated: report.updated += 1; report.verified += 1
                case .unchanged: report.unchanged += 1; report.verified += 1
                case .deleted: report.skippedDeleted += 1
                case .failed(let why): report.failures.append(why)
                }
            }
            cursor = page.cursor
        } while cursor != nil
        report.failures.sort()
        return report
    }

    private func migrate(_ grants: [GrantSummary]) async -> [Outcome] {
        await withTaskGroup(of: Outcome.self) { group in
            var outcomes: [Outcome] = []
            var next = grants.makeIterator()
            var running = 0
            while running < concurrency, let grant = next.next() {
                group.addTask { await migrate(grant) }
                running += 1
            }
            while let outcome = await group.next() {
                outcomes.append(outcome)
                if let grant = next.next() { group.addTask { await migrate(grant) } }
            }
            return outcomes
        }
    }

    private func migrate(_ grant: GrantSummary) async -> Outcome {
        if grant.deletionDate != nil { return .deleted }
        do {
            let value: GrantValue
            do {
                value = try await source.read(grant.user)
            } catch let error as StoreError where error == .scheduledForDeletion || error == .notFound {
                return .deleted
            }
            let outcome = try await write(value.value, attributes: grant.attributes, for: grant.user)
            let copy = try await target.read(grant.user)
            let attributes = try await target.state(of: grant.user).attributes
            guard copy.value == value.value, grant.attributes.allSatisfy({ attributes[$0.key] == $0.value }) else {
                return .failed("\(grant.user): the copy read back differs")
            }
            return outcome
        } catch let error as StoreError {
            return .failed("\(grant.user): \(error.codeName)")
        } catch {
            return .failed("\(grant.user): \(type(of: error))")
        }
    }

    private func write(_ value: String, attributes: [String: String], for user: String) async throws -> Outcome {
        do {
            try await target.create(user, value: value, attributes: attributes)
            return .copied
        } catch let error as StoreError where error == .alreadyExists || error == .scheduledForDeletion {
            if error == .scheduledForDeletion { try await target.restore(user) }
            let held = try await target.read(user)
            if held.value == value {
                try await target.mark(user, attributes: attributes)
                return .unchanged
            }
            try await target.replace(user, expected: held.version, value: value, attributes: attributes)
            return .updated
        }
    }
}
