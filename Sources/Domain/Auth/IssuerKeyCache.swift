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
/// - Only a set fetched for the request itself can say a `kid` does not exist. Until the
///   next refetch is allowed, a `kid` the held set lacks is unavailable ("try again"), not
///   unknown: the set may predate the key, and an invented `kid` that used up the minute's
///   refetch must not turn the issuer's new key into a refusal (for Google's events a
///   final one: Google never delivers a 400 again). A `kid` a set fetched for it lacked, or
///   one the set names but this backend cannot use, is refused at once until the next fetch.
/// - A failed fetch keeps the keys already held (an outage at the issuer does not sign
///   every user out) and is tried again after 10 seconds; with no keys at all the request
///   is unavailable, never unauthorized: the caller's token is not at fault. An answer that
///   holds no usable key (`{"keys": []}`, or only keys this backend cannot use) is a failed
///   fetch too, never a set that refuses every token.
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
    /// Successful fetches so far: a request that sees it grow fetched (or shared) a set of its own.
    private var fetched = 0
    /// The `kid`s a set fetched for them lacked: refused for good until the next fetch (a
    /// handful at most, one per refetch).
    private var confirmedAbsent: Set<String> = []

    init(source: any IssuerKeySource) {
        self.source = source
    }

    /// The key set to verify a token whose header names `kid`.
    /// - Throws: ``PayPulsePorts/IssuerKeysUnavailable`` (the last fetch's reason) when no
    ///   set was ever fetched, or when the set held lacks `kid` and could not be fetched
    ///   again for this request.
    func keySet(for kid: String?, now: Date) async throws(IssuerKeysUnavailable) -> IssuerKeySet {
        let fetchedBefore = fetched
        if current == nil || now >= expiresAt {
            if now >= nextRetry { await fetch(now: now) }
        } else if let kid, current?.names(kid: kid) == false, !confirmedAbsent.contains(kid),
                  now.timeIntervalSince(lastFetch) >= Self.unknownKeyRefetchInterval {
            await fetch(now: now)
        }
        guard let current else { throw lastFailure ?? IssuerKeysUnavailable(reason: "no key set was fetched") }
        if let kid, !current.names(kid: kid), !confirmedAbsent.contains(kid) {
            guard fetched > fetchedBefore else {
                // The token's kid is not echoed: it is the sender's text.
                throw IssuerKeysUnavailable(reason: "the token names a key the held set lacks, and the set cannot be fetched again yet")
            }
            confirmedAbsent.insert(kid)
        }
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
            guard !set.keys.isEmpty else { throw IssuerKeysUnavailable(reason: "the key set holds no key this backend can use") }
            current = set
            fetched += 1
            confirmedAbsent = []
            let lifetime = min(max(answer.maxAge ?? Self.defaultLifetime, Self.lifetimeBounds.lowerBound), Self.lifetimeBounds.upperBound)
            expiresAt = now.addingTimeInterval(TimeInterval(lifetime))
        } catch {
            nextRetry = now.addingTimeInterval(Self.retryAfterFailure)
            lastFailure = error
        }
    }
}
