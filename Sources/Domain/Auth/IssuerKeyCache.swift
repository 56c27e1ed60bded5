#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// An identity provider's keys, kept across warm invocations and fetched again only when
/// they expire or a token names a key the set lacks.
///
/// - Kept for the answer's `Cache-Control: max-age`, bounded to 1 minute ... 1 day (10
///   minutes when it says nothing).
/// - A `kid` the set lacks (the issuer rotated) fetches again at most once a minute, so a
///   flood of invented `kid`s costs the issuer one request a minute.
/// - A failed fetch keeps the keys already held (an outage at the issuer does not sign
///   every user out) and is tried again after 10 seconds; with no keys at all the request
///   is unavailable, never unauthorized: the caller's token is not at fault.
/// - Concurrent requests that need a fetch share one.
/// - The issuer the source names with the keys (a RISC discovery document's) is kept with
///   them, for the same lifetime.
///
/// It serves the ``Authenticator`` under `jwks` and the ``SecurityEventVerifier``; each maps
/// ``PayPulsePorts/IssuerKeysUnavailable`` to its own "try again later" answer.
actor IssuerKeyCache {
    static let defaultLifetime = 600
    static let lifetimeBounds = 60...86_400
    /// The least time between two fetches caused by unknown `kid`s.
    static let unknownKeyRefetchInterval: TimeInterval = 60
    /// The least time between a failed fetch and the next.
    static let retryAfterFailure: TimeInterval = 10

    private let source: any IssuerKeySource
    private var current: IssuerKeySet?
    private var expiresAt = Date.distantPast
    private var lastFetch = Date.distantPast
    private var nextRetry = Date.distantPast
    private var lastFailure: IssuerKeysUnavailable?
    private var inFlight: Task<Void, Never>?

    init(source: any IssuerKeySource) {
        self.source = source
    }

    /// The key set to verify a token whose header names `kid`.
    /// - Throws: ``PayPulsePorts/IssuerKeysUnavailable`` (the last fetch's reason) when no
    ///   set was ever fetched.
    func keySet(for kid: String?, now: Date) async throws(IssuerKeysUnavailable) -> IssuerKeySet {
        if current == nil || now >= expiresAt {
            if now >= nextRetry { await fetch(now: now) }
        } else if let kid, current?.contains(kid: kid) == false, now.timeIntervalSince(lastFetch) >= Self.unknownKeyRefetchInterval {
            await fetch(now: now)
        }
        guard let current else { throw lastFailure ?? IssuerKeysUnavailable(reason: "no key set was fetched") }
        return current
    }

    private func fetch(now: Date) async {
        if let inFlight { return await inFlight.value }
        let task = Task { await self.fetchOnce(now: now) }
        inFlight = task
        await task.value
        inFlight = nil
    }

    private func fetchOnce(now: Date) async {
        lastFetch = now
        do throws(IssuerKeysUnavailable) {
            let answer = try await source.fetchKeySet()
            guard let set = IssuerKeySet.parse(answer.document, issuer: answer.issuer) else {
                throw IssuerKeysUnavailable(reason: "the answer is not a JWKS document")
            }
            current = set
            let lifetime = min(max(answer.maxAge ?? Self.defaultLifetime, Self.lifetimeBounds.lowerBound), Self.lifetimeBounds.upperBound)
            expiresAt = now.addingTimeInterval(TimeInterval(lifetime))
        } catch {
            nextRetry = now.addingTimeInterval(Self.retryAfterFailure)
            lastFailure = error
        }
    }
}
