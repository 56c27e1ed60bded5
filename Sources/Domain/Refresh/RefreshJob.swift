#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

/// One scheduled refresh run: list the token sets page by page, pick the due ones from
/// their tags (no value is read for the rest), refresh them soonest-expiry first with
/// bounded concurrency and a paced write budget, and stop starting new work near the
/// deadline.
public struct RefreshJob: Sendable {
    let secrets: any SecretStore
    let refresher: TokenRefresher
    let settings: RefreshSettings
    let listPrefix: String
    let now: @Sendable () -> Date

    /// The secret-name prefix of every user's token set.
    public static let prefix = "gmail/user/"

    /// Creates a job.
    /// - Parameter listPrefix: what to list: ``prefix`` (everyone), or a longer prefix
    ///   that narrows the run to user ids starting with the rest.
    public init(
        secrets: any SecretStore, refresher: TokenRefresher, settings: RefreshSettings, listPrefix: String = RefreshJob.prefix,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.secrets = secrets
        self.refresher = refresher
        self.settings = settings
        self.listPrefix = listPrefix.hasPrefix(Self.prefix) ? listPrefix : Self.prefix
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
        var due: [Candidate] = []
        var token: String?
        repeat {
            let page = try await secrets.listSecrets(namePrefix: listPrefix, includePlannedDeletion: false, maxResults: 100, nextToken: token)
            for secret in page.secrets where secret.deletedDate == nil {
                guard let user = UserID(String(secret.name.dropFirst(Self.prefix.count))), shard.contains(user) else { continue }
                summary.scanned += 1
                if TokenSetTags.isSettled(secret.tags) {
                    summary.skipped += 1
                    continue
                }
                if TokenSetTags.awaitsVerification(secret.tags) {
                    due.append(Candidate(user: user, expiry: nil, tags: secret.tags))
                    continue
                }
                if let idleSince {
                    // Without a date the value decides: treat it as due and let the read tell.
                    if secret.lastChangedDate.map({ $0 <= idleSince }) ?? true {
                        due.append(Candidate(user: user, expiry: secret.lastChangedDate, tags: secret.tags))
                    }
                    continue
                }
                let expiry = TokenSetTags.impliedExpiry(from: secret.tags, lastChanged: secret.lastChangedDate)
                // Without an expiry tag the value decides: treat it as due and let the read tell.
                if expiry.map({ $0 <= horizon }) ?? true { due.append(Candidate(user: user, expiry: expiry, tags: secret.tags)) }
            }
            token = page.nextToken
        } while token != nil && hasTime(before: deadline)
        return due.sorted { ($0.expiry ?? .distantPast) < ($1.expiry ?? .distantPast) }
    }
}
