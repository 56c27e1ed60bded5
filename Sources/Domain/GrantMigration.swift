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
/// A grant scheduled for deletion is not copied (its value cannot be read without restoring
/// it, and its grant was revoked at Google), but its deletion is: a live copy in the target
/// (a disconnect since the last run) gets the source's attributes (the revoked mark) and is
/// deleted with a disconnect's recovery window, so it cannot read as connected and a
/// reconnect can still restore it. (The window the source has left is not known on every
/// store: Secrets Manager tells when a deletion was asked for, not when it ends.) A reconnect
/// after that run makes the source live again: the next run restores the deleted copy and
/// writes the source's value over it, so reruns converge.
package struct GrantMigration: Sendable {
    /// What a run did, per grant.
    package struct Report: Sendable, Equatable, Codable {
        /// Grants listed in the source.
        package var listed = 0
        /// Created in the target.
        package var copied = 0
        /// Replaced in the target, which held another value.
        package var updated = 0
        /// Already in the target with the same value (attributes set again).
        package var unchanged = 0
        /// Scheduled for deletion in the source (or deleted while the run read it), with no live
        /// copy in the target: nothing to do.
        package var skippedDeleted = 0
        /// Scheduled for deletion in the source, with a live copy in the target: that copy
        /// marked as the source is and deleted.
        package var deletedInTarget = 0
        /// Read back from the target equal to the source.
        package var verified = 0
        /// The users whose copy failed or did not verify, with why (no value in the text).
        package var failures: [String] = []

        /// Whether every grant listed was copied and verified, or its deletion carried over.
        package var complete: Bool { failures.isEmpty && verified + skippedDeleted + deletedInTarget == listed }
    }

    /// A run stopped on request (``MigrationProgress/stop()``) before the listing's end.
    package struct Interrupted: Error, Sendable {
        /// What the run did until it stopped.
        package var report: Report
        /// The listing position a new run resumes from (``run(resumingFrom:progress:)``);
        /// `nil` is the start.
        package var resumeCursor: String?
    }

    let source: any GrantStore
    let target: any GrantStore
    let userPrefix: String
    let concurrency: Int
    let recoveryWindowDays: Int
    let limiter: WriteRateLimiter?

    /// Creates a migration of the grants whose user id starts with `userPrefix` (all by default).
    /// - Parameters:
    ///   - concurrency: grants copied at once.
    ///   - recoveryWindowDays: the window a deletion carried over gets
    ///     (`DISCONNECT_RECOVERY_DAYS`, 7 to 30).
    ///   - writesPerSecond: the pace of the target's write calls, to stay under its quota
    ///     (Secrets Manager shares 50 writes/s per region with every other writer); `nil`: unpaced.
    package init(
        from source: any GrantStore, to target: any GrantStore, userPrefix: String = "", concurrency: Int = 8, recoveryWindowDays: Int = 7,
        writesPerSecond: Int? = nil
    ) {
        self.source = source
        self.target = target
        self.userPrefix = userPrefix
        self.concurrency = max(concurrency, 1)
        self.recoveryWindowDays = min(max(recoveryWindowDays, 7), 30)
        self.limiter = writesPerSecond.map { WriteRateLimiter(writesPerSecond: $0) }
    }

    private enum Outcome: Sendable {
        case copied, updated, unchanged, deleted, deletedInTarget
        case failed(String)
    }

    /// Runs once over every page of the source's listing.
    /// - Parameters:
    ///   - start: a listing position a stopped run gave (``Interrupted/resumeCursor``): the
    ///     grants listed before it are not read again. `nil`: from the start.
    ///   - progress: counts as the run goes, and stops it on request.
    /// - Throws: ``Interrupted`` when `progress` asked it to stop; `StoreError` when the
    ///   listing itself fails. A failing grant is reported instead.
    package func run(resumingFrom start: String? = nil, progress: MigrationProgress = MigrationProgress()) async throws -> Report {
        var report = Report()
        var cursor = start
        repeat {
            progress.beginPage(at: cursor)
            if progress.isStopRequested { throw Interrupted(report: report.sorted(), resumeCursor: cursor) }
            let page = try await source.list(userPrefix: userPrefix, includeDeleted: true, cursor: cursor, limit: 100)
            report.listed += page.grants.count
            progress.listed(page.grants.count)
            let outcomes = await migrate(page.grants, progress: progress)
            for outcome in outcomes {
                switch outcome {
                case .copied: report.copied += 1; report.verified += 1
                case .updated: report.updated += 1; report.verified += 1
                case .unchanged: report.unchanged += 1; report.verified += 1
                case .deleted: report.skippedDeleted += 1
                case .deletedInTarget: report.deletedInTarget += 1
                case .failed(let why): report.failures.append(why)
                }
            }
            // Part of the page left: a new run starts over at this page.
            if outcomes.count < page.grants.count { throw Interrupted(report: report.sorted(), resumeCursor: cursor) }
            cursor = page.cursor
        } while cursor != nil
        progress.endListing()
        return report.sorted()
    }

    /// Copies `grants`, `concurrency` at a time, starting none once a stop is requested.
    private func migrate(_ grants: [GrantSummary], progress: MigrationProgress) async -> [Outcome] {
        await withTaskGroup(of: Outcome.self) { group in
            var outcomes: [Outcome] = []
            var next = grants.makeIterator()
            func startNext() -> Bool {
                guard !progress.isStopRequested, let grant = next.next() else { return false }
                group.addTask { await migrate(grant) }
                return true
            }
            var running = 0
            while running < concurrency, startNext() { running += 1 }
            while let outcome = await group.next() {
                outcomes.append(outcome)
                progress.finishedOne()
                _ = startNext()
            }
            return outcomes
        }
    }

    private func migrate(_ grant: GrantSummary) async -> Outcome {
        do {
            if grant.deletionDate != nil { return try await carryDeletion(of: grant.user, attributes: grant.attributes) }
            let value: GrantValue
            do {
                value = try await source.read(grant.user)
            } catch let error as StoreError where error == .scheduledForDeletion {
                return try await carryDeletion(of: grant.user, attributes: try await source.state(of: grant.user).attributes)
            } catch let error as StoreError where error == .notFound {
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

    /// A grant deleted in the source: a live copy in the target is marked with the source's
    /// attributes and deleted with ``recoveryWindowDays``.
    private func carryDeletion(of user: String, attributes: [String: String]) async throws -> Outcome {
        let state: GrantState
        do {
            state = try await target.state(of: user)
        } catch let error as StoreError where error == .notFound {
            return .deleted
        }
        guard !state.isScheduledForDeletion else { return .deleted }
        try await pace(2)
        try await target.mark(user, attributes: attributes)
        do {
            try await target.delete(user, recoveryWindowDays: recoveryWindowDays)
        } catch let error as StoreError where error == .scheduledForDeletion {
            return .deleted  // deleted meanwhile
        }
        return .deletedInTarget
    }

    private func write(_ value: String, attributes: [String: String], for user: String) async throws -> Outcome {
        do {
            try await pace(1)
            try await target.create(user, value: value, attributes: attributes)
            return .copied
        } catch let error as StoreError where error == .alreadyExists || error == .scheduledForDeletion {
            // A copy deleted by an earlier run (a disconnect) while the source is live again (a
            // reconnect): restore it, then write over it. Stores differ in which error their
            // create gives for it (DynamoDB and Secrets Manager say it exists), so ask the read.
            let held: GrantValue
            do {
                held = try await target.read(user)
            } catch let error as StoreError where error == .scheduledForDeletion {
                try await pace(1)
                try await target.restore(user)
                held = try await target.read(user)
            }
            if held.value == value {
                try await pace(1)
                try await target.mark(user, attributes: attributes)
                return .unchanged
            }
            // Secrets Manager: PutSecretValue, then TagResource.
            try await pace(target.writesAttributesWithValue ? 1 : 3)
            try await target.replace(user, expected: held.version, value: value, attributes: attributes)
            return .updated
        }
    }

    /// Waits for `writes` permits of the target's write pace.
    private func pace(_ writes: Int) async throws {
        try await limiter?.acquire(writes)
    }
}

extension GrantMigration.Report {
    /// The report with its failures in order, as a run returns it.
    func sorted() -> Self {
        var sorted = self
        sorted.failures.sort()
        return sorted
    }
}
