#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// One scheduled refresh run: list the token sets that may be due page by page
/// (``GrantStore/listDue(userPrefix:dueBy:cursor:limit:)``), pick the due ones from
/// their tags (no value is read for the rest), refresh them soonest-expiry first with
/// bounded concurrency and a paced write budget, and stop starting new work near the
/// deadline.
package struct RefreshJob: Sendable {
    let grants: any GrantStore
    let refresher: TokenRefresher
    let settings: RefreshSettings
    let userPrefix: String
    /// Applies Google's recorded word on accounts (``GoogleAccountEvents/applyWord(of:logger:)``);
    /// `nil` applies none.
    let googleWord: GoogleAccountEvents?
    let now: @Sendable () -> Date

    /// Creates a job.
    /// - Parameters:
    ///   - userPrefix: what to list: `""` (everyone), or a prefix that narrows the run to
    ///     the user ids starting with it.
    ///   - googleWord: each run first applies the word Google gave on accounts within
    ///     ``RefreshSettings/googleWordLagSeconds`` to the grants the listing shows by then.
    package init(
        grants: any GrantStore, refresher: TokenRefresher, settings: RefreshSettings, userPrefix: String = "",
        googleWord: GoogleAccountEvents? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.grants = grants
        self.refresher = refresher
        self.settings = settings
        self.userPrefix = userPrefix
        self.googleWord = googleWord
        self.now = now
    }

    /// The catch-up for Google's events whose receiver a lagging listing hid a grant from:
    /// the word recorded on each account within the lag bound is applied again to the grants
    /// the listing shows now (applying it again changes nothing that is already so). Only the
    /// first shard's run does it, so n shards do it once. Best effort: a failure is logged,
    /// and the next run, whose window still holds the word, tries again.
    private func applyRecentWord(shard: Shard, logger: Logger) async {
        guard let googleWord, let words = googleWord.words, shard.index == 0 else { return }
        do {
            let accounts = try await words.accounts(spokenOfSince: now().addingTimeInterval(-Double(settings.googleWordLagSeconds)))
            for account in accounts {
                let applied = try await googleWord.applyWord(of: account, logger: logger)
                if !applied.changed.isEmpty {
                    logger.notice("Google's recorded word applied to grants its event had not reached", metadata: [
                        "grants_changed": "\(applied.changed.count)",
                    ])
                }
            }
        } catch {
            logger.error("Google's recorded word could not be applied this run; the next run tries again", metadata: ["error": "\(error)"])
        }
    }

    private struct Candidate {
        var user: UserID
        var expiry: Date?
        /// The tags the listing showed, so a stale set of them can be repaired.
        var tags: [String: String]
        /// Whether those tags may not describe the value (``TokenSetTags/needRewriting(_:)``).
        var stale = false
        /// Whether the grant is deleted with a newer value than its deleter decided on, and
        /// is restored first (``TokenSetTags/deletedTooSoon(_:)``).
        var restore = false
    }

    /// Restores a grant a stepwise deletion left deleted with a newer value (its compare or
    /// restore failed, or its process died), then refreshes it as any grant. A value that was
    /// the one to delete after all (its tags alone said otherwise: a late retag, a failed
    /// one) is tagged from its value and deleted again: by its outbox when it waits for an
    /// event, here otherwise, with the deployment's recovery window.
    private func restoreThenRefresh(
        _ candidate: Candidate, sweepBudget: Duration?, logger: Logger
    ) async throws(TokenRefresher.ConfigurationFailure) -> TokenRefresher.Outcome {
        let user = candidate.user
        do {
            try await grants.restore(user.rawValue)
            if let restored = try await refresher.vault.current(of: user), restored.tokenSet.status == .revoked,
               restored.tokenSet.lifecycle?.hasWork != true {
                // Its tags first, so the listing shows the revoked mark stamped for its own
                // version and the next run leaves it deleted (else every run restored it
                // again, its recovery window starting over). A retag that fails: next run.
                try? await refresher.vault.retag(restored.tokenSet, of: user, version: restored.version)
                try await grants.delete(user.rawValue, expected: restored.version, recoveryWindowDays: googleWord?.recoveryWindowDays ?? 7)
                return .skipped("deleted again: the disconnect's own value")
            }
        } catch {
            return .transientFailure("restore: \(error)")
        }
        logger.notice("grant restored: a deletion had taken a newer value", metadata: ["user_id": "\(user)"])
        return try await refresher.refreshIfDue(candidate.user, listedTags: candidate.tags, listingStale: true, sweepBudget: sweepBudget, logger: logger)
    }

    /// Runs once over `shard`.
    /// - Parameter deadline: when the invocation ends; `nil` for no limit.
    /// - Throws: ``TokenRefresher/ConfigurationFailure`` (stop and report), or `StoreError`
    ///   when the listing itself fails; never because some grants failed.
    package func run(shard: Shard = .all, deadline: ContinuousClock.Instant?, logger: Logger) async throws -> RefreshSummary {
        let started = ContinuousClock.now
        var summary = RefreshSummary()
        await applyRecentWord(shard: shard, logger: logger)
        let due = try await listDue(shard: shard, summary: &summary, deadline: deadline)
        summary.due = due.count

        var next = due.makeIterator()
        var skippedAfterRead = 0
        var configurationFailure: TokenRefresher.ConfigurationFailure?
        try await withThrowingTaskGroup(of: TokenRefresher.Outcome.self) { group in
            var running = 0
            func startNext() -> Bool {
                guard configurationFailure == nil, hasTime(before: deadline), let candidate = next.next() else { return false }
                let sweep = sweepBudget(before: deadline)
                group.addTask {
                    if candidate.restore { return try await restoreThenRefresh(candidate, sweepBudget: sweep, logger: logger) }
                    return try await refresher.refreshIfDue(
                        candidate.user, listedTags: candidate.tags, listingStale: candidate.stale, sweepBudget: sweep, logger: logger
                    )
                }
                running += 1
                return true
            }
            while running < max(settings.concurrency, 1), startNext() {}
            while running > 0 {
                do {
                    guard let outcome = try await group.next() else { break }
                    count(outcome, into: &summary, skippedAfterRead: &skippedAfterRead)
                } catch let failure as TokenRefresher.ConfigurationFailure {
                    configurationFailure = failure
                    group.cancelAll()
                }
                running -= 1
                _ = startNext()
            }
        }
        let finished = summary.refreshed + summary.conflicts + summary.revoked + summary.rejected + summary.transient_failures
            + skippedAfterRead
        summary.remaining = summary.due - finished
        summary.skipped += skippedAfterRead
        let elapsed = ContinuousClock.now - started
        summary.duration_ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        if let configurationFailure {
            logger.critical("refresh run stopped: configuration error", metadata: ["error": "\(configurationFailure)"])
            throw configurationFailure
        }
        return summary
    }

    /// How long a grant's sweep may publish its pending events: the publisher's sweep
    /// budget for each put a full outbox takes, never past the run's deadline (nobody waits
    /// on the run, but the run must end in time; what is left goes with the next run).
    private func sweepBudget(before deadline: ContinuousClock.Instant?) -> Duration? {
        guard let budget = refresher.vault.events?.grantSweepBudget else { return nil }
        guard let deadline else { return budget }
        return max(.zero, min(budget, deadline - ContinuousClock.now))
    }

    private func hasTime(before deadline: ContinuousClock.Instant?) -> Bool {
        guard let deadline else { return true }
        return deadline - ContinuousClock.now > .seconds(settings.stopMarginSeconds)
    }

    private func count(_ outcome: TokenRefresher.Outcome, into summary: inout RefreshSummary, skippedAfterRead: inout Int) {
        switch outcome {
        case .refreshed: summary.refreshed += 1
        case .conflict: summary.conflicts += 1
        case .revoked: summary.revoked += 1
        case .rejected: summary.rejected += 1
        case .transientFailure: summary.transient_failures += 1
        case .skipped: skippedAfterRead += 1
        }
    }

    /// Lists every page and keeps the due sets of this shard, soonest expiry (or oldest
    /// write, keeping alive) first; sets awaiting verification come first of all. Sets the
    /// listing shows as revoked, rejected or not refreshable are counted as skipped without
    /// a read.
    ///
    /// Eager: due when the expiry tag falls within the window. Keeping alive: due when no
    /// value was written for the keep-alive interval (every refresh and connect writes one,
    /// so the listing's last-change date bounds the last verification from below).
    private func listDue(shard: Shard, summary: inout RefreshSummary, deadline: ContinuousClock.Instant?) async throws -> [Candidate] {
        let horizon = now().addingTimeInterval(Double(settings.windowSeconds))
        let idleSince = settings.keepAlive.map { now().addingTimeInterval(-Double($0)) }
        let dueBy = settings.dueBy(now: now())
        // With a digest key, a usable grant listed without digests is read and stamped.
        let stamps = (try? await refresher.vault.digester()) != nil
        var due: [Candidate] = []
        var cursor: String?
        repeat {
            // A store with a due index lists only what may be due; the tests below still
            // decide, as they do for a store that lists everything.
            // A store whose conditional delete is stepwise lists its deleted grants too: one a
            // deletion left deleted with a newer value is restored.
            let page = grants.deletesInSteps
                ? try await grants.list(userPrefix: userPrefix, includeDeleted: true, cursor: cursor, limit: 100)
                : try await grants.listDue(userPrefix: userPrefix, dueBy: dueBy, cursor: cursor, limit: 100)
            for grant in page.grants {
                guard let user = UserID(grant.user), shard.contains(user) else { continue }
                guard grant.deletionDate == nil else {
                    if TokenSetTags.deletedTooSoon(grant) { due.append(Candidate(user: user, expiry: nil, tags: grant.attributes, restore: true)) }
                    continue
                }
                summary.scanned += 1
                // Tags a failed or overtaken tag write left, which could keep the grant from
                // being read: read it, and rewrite them from the value.
                if TokenSetTags.needRewriting(grant) {
                    due.append(Candidate(user: user, expiry: nil, tags: grant.attributes, stale: true))
                    continue
                }
                // The outbox's sweep: a grant with events pending is read whatever its state.
                if TokenSetTags.hasPendingEvents(grant.attributes) {
                    due.append(Candidate(user: user, expiry: nil, tags: grant.attributes))
                    continue
                }
                if stamps, TokenSetTags.lacksDigests(grant.attributes) {
                    due.append(Candidate(user: user, expiry: nil, tags: grant.attributes))
                    continue
                }
                if TokenSetTags.isSettled(grant.attributes) {
                    summary.skipped += 1
                    continue
                }
                if TokenSetTags.awaitsVerification(grant.attributes) {
                    due.append(Candidate(user: user, expiry: nil, tags: grant.attributes))
                    continue
                }
                if let idleSince {
                    // Without a date the value decides: treat it as due and let the read tell.
                    if grant.lastWritten.map({ $0 <= idleSince }) ?? true {
                        due.append(Candidate(user: user, expiry: grant.lastWritten, tags: grant.attributes))
                    }
                    continue
                }
                let expiry = TokenSetTags.impliedExpiry(from: grant.attributes, lastChanged: grant.lastWritten)
                // Without an expiry tag the value decides: treat it as due and let the read tell.
                if expiry.map({ $0 <= horizon }) ?? true { due.append(Candidate(user: user, expiry: expiry, tags: grant.attributes)) }
            }
            cursor = page.cursor
        } while cursor != nil && hasTime(before: deadline)
        return due.sorted { ($0.expiry ?? .distantPast) < ($1.expiry ?? .distantPast) }
    }
}

/// What one refresh run did: the handler's result, and the same counts as metrics.
package struct RefreshSummary: Sendable, Equatable, Codable {
    /// Grants listed in this shard: every grant on a store that lists everything, only those
    /// that may be due on one with a due index (the DynamoDB token store).
    package var scanned = 0
    /// Those the listing showed as due (expiring within the window, refreshable).
    package var due = 0
    /// Grants refreshed and written back.
    package var refreshed = 0
    /// Refreshes dropped because newer tokens were stored meanwhile.
    package var conflicts = 0
    /// Grants Google refused (`invalid_grant`), now marked revoked.
    package var revoked = 0
    /// Grants Google refused as issued to another OAuth client, now marked rejected.
    package var rejected = 0
    /// Grants left for the next run after a transient Google or store failure.
    package var transient_failures = 0
    /// Sets not refreshed: already revoked or rejected, without a refresh token, or not due
    /// after all.
    package var skipped = 0
    /// Due grants not started because the deadline was near.
    package var remaining = 0
    /// How long the run took.
    package var duration_ms = 0

    /// An empty summary.
    package init() {}

    /// The counts as one CloudWatch Embedded Metric Format document (namespace
    /// `PayPulse/TokenRefresh`, dimension `Function`), on one line.
    package func embeddedMetricFormat(function: String, timestamp: Date) -> String {
        let counts: [(String, Int)] = [
            ("Scanned", scanned), ("Due", due), ("Refreshed", refreshed), ("Conflicts", conflicts), ("Revoked", revoked), ("Rejected", rejected),
            ("TransientFailures", transient_failures), ("Skipped", skipped), ("Remaining", remaining),
        ]
        let metrics = counts.map { EmbeddedMetricLine.Metric($0.0, Int64($0.1)) } + [EmbeddedMetricLine.Metric("DurationMs", unit: "Milliseconds", Int64(duration_ms))]
        return EmbeddedMetricLine.line(namespace: "PayPulse/TokenRefresh", dimensions: [("Function", function)], metrics: metrics, timestamp: timestamp)
    }
}

/// One of `count` slices of the users, by a stable hash of the user id, so that n scheduled
/// invocations split the work without coordinating.
package struct Shard: Sendable, Equatable, Codable {
    /// This slice, `0..<count`.
    package let index: Int
    /// How many slices.
    package let count: Int

    /// Creates a shard; `nil` unless `count >= 1` and `0 <= index < count`.
    package init?(index: Int, count: Int) {
        guard count >= 1, count <= 10_000, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Everyone.
    package static let all = Shard(index: 0, count: 1)!

    /// Whether `user` falls in this slice. FNV-1a over the UTF-8 bytes: the same on every
    /// machine and release, unlike Swift's seeded `Hasher`.
    package func contains(_ user: UserID) -> Bool {
        Int(Self.stableHash(user.rawValue) % UInt64(count)) == index
    }

    /// 64-bit FNV-1a.
    package static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
