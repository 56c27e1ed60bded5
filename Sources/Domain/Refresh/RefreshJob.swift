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
public struct RefreshJob: Sendable {
    let grants: any GrantStore
    let refresher: TokenRefresher
    let settings: RefreshSettings
    let userPrefix: String
    let now: @Sendable () -> Date

    /// Creates a job.
    /// - Parameter userPrefix: what to list: `""` (everyone), or a prefix that narrows the
    ///   run to the user ids starting with it.
    public init(
        grants: any GrantStore, refresher: TokenRefresher, settings: RefreshSettings, userPrefix: String = "",
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.grants = grants
        self.refresher = refresher
        self.settings = settings
        self.userPrefix = userPrefix
        self.now = now
    }

    private struct Candidate {
        var user: UserID
        var expiry: Date?
        /// The tags the listing showed, so a stale set of them can be repaired.
        var tags: [String: String]
    }

    /// Runs once over `shard`.
    /// - Parameter deadline: when the invocation ends; `nil` for no limit.
    /// - Throws: ``TokenRefresher/ConfigurationFailure`` (stop and report), or `StoreError`
    ///   when the listing itself fails; never because some grants failed.
    public func run(shard: Shard = .all, deadline: ContinuousClock.Instant?, logger: Logger) async throws -> RefreshSummary {
        let started = ContinuousClock.now
        var summary = RefreshSummary()
        let due = try await listDue(shard: shard, summary: &summary, deadline: deadline)
        summary.due = due.count

        var next = due.makeIterator()
        var skippedAfterRead = 0
        var configurationFailure: TokenRefresher.ConfigurationFailure?
        try await withThrowingTaskGroup(of: TokenRefresher.Outcome.self) { group in
            var running = 0
            func startNext() -> Bool {
                guard configurationFailure == nil, hasTime(before: deadline), let candidate = next.next() else { return false }
                group.addTask { try await refresher.refreshIfDue(candidate.user, listedTags: candidate.tags, logger: logger) }
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
        var due: [Candidate] = []
        var cursor: String?
        repeat {
            // A store with a due index lists only what may be due; the tests below still
            // decide, as they do for a store that lists everything.
            let page = try await grants.listDue(userPrefix: userPrefix, dueBy: dueBy, cursor: cursor, limit: 100)
            for grant in page.grants where grant.deletionDate == nil {
                guard let user = UserID(grant.user), shard.contains(user) else { continue }
                summary.scanned += 1
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
