/// Each user's allowance of one costly request (a store-tokens post: a proof at Google under
/// our OAuth client and a write against the region's shared quota), counted in the store so
/// that every instance of every function sees the same count.
///
/// The count is a sliding window: at most ``QuotaRule/limit`` uses in any ``QuotaRule/span``,
/// not per calendar minute, so a storm across a minute's boundary gets no second allowance.
package protocol RequestQuota: Sendable {
    /// Takes one use of `user`'s allowance at `now` (seconds since 1970) when fewer than the
    /// rule's limit were taken in the span before it; a refused take writes nothing.
    /// - Parameter id: the post's own id, written with its use: a store whose write can land
    ///   unheard (DynamoDB) finds it on the retry and counts nothing new.
    /// - Throws: `StoreError` when the count cannot be read or written.
    func take(for user: String, at now: Double, id: String) async throws -> QuotaDecision
}

extension RequestQuota {
    /// Takes one use under an id of its own (``QuotaUseID/random()``).
    package func take(for user: String, at now: Double) async throws -> QuotaDecision {
        try await take(for: user, at: now, id: QuotaUseID.random())
    }
}

/// The id a post's use of its allowance is written with.
package enum QuotaUseID {
    /// A fresh id from the system generator (a version-4 UUID's spelling, no spaces).
    package static func random() -> String { SecretVersionID.random().rawValue }
}

/// What a ``RequestQuota`` answered.
package enum QuotaDecision: Sendable, Equatable {
    /// The use was counted: go on.
    case taken
    /// The allowance is spent: the oldest counted use leaves the window in `retryAfter`
    /// whole seconds (at least 1).
    case exhausted(retryAfter: Int)
}

/// How many uses a user has in what span, and the decision every store makes alike from the
/// uses it keeps (their times, seconds since 1970).
package struct QuotaRule: Sendable, Equatable {
    /// The most uses in any ``span``.
    package var limit: Int
    /// The window, in seconds.
    package var span: Double

    /// A rule of `limit` uses per `span` seconds (by default a minute).
    package init(limit: Int, span: Double = 60) {
        self.limit = limit
        self.span = span
    }

    /// The decision on one more use at `now`, and the uses to keep when it is taken (those
    /// still in the window, oldest first, then `now`); `nil` uses when it is refused, so
    /// nothing is written.
    package func decide(uses: [Double], at now: Double) -> (decision: QuotaDecision, kept: [Double]?) {
        let live = uses.filter { $0 > now - span && $0 <= now + span }.sorted()
        guard live.count >= limit else { return (.taken, live + [now]) }
        // The use whose leaving makes room: with `limit` kept, the oldest of the last `limit`.
        let freed = live[live.count - limit] + span
        return (.exhausted(retryAfter: max(1, Int((freed - now).rounded(.up)))), nil)
    }

    /// When a kept record of `uses` can go: when its newest use leaves the window.
    package func expiry(of uses: [Double]) -> Double { (uses.max() ?? 0) + span }

    /// How every store keeps a user's uses: whole milliseconds since 1970, space-separated.
    package static func text(of uses: [Double]) -> String {
        uses.map { String(Int64(($0 * 1000).rounded())) }.joined(separator: " ")
    }

    /// The uses (seconds since 1970) ``text(of:)`` wrote; `nil` for text it did not write.
    package static func uses(from text: String) -> [Double]? {
        let words = text.split(separator: " "), milliseconds = words.compactMap { Int64($0) }
        return milliseconds.count == words.count ? milliseconds.map { Double($0) / 1000 } : nil
    }
}
