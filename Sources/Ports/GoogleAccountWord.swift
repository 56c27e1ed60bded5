#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Google's latest word on one Google account: for each kind of Cross-Account Protection
/// event that acts on an account, the issue time (`iat`) of the latest one verified. Kept by
/// ``GoogleAccountWords`` apart from any grant, so an event is remembered even when no grant
/// of the account could be found when it came (a listing that lags, a write in flight).
///
/// Each member only moves forward: an older event of a kind never replaces a newer one.
package struct GoogleAccountWord: Sendable, Equatable {
    /// What an event says of the account.
    package enum Kind: String, Sendable, CaseIterable {
        /// `tokens-revoked`: every token issued before it is dead.
        case revoked
        /// `account-disabled`.
        case disabled
        /// `account-enabled`.
        case enabled
        /// `account-purged`: the account is gone.
        case purged
    }

    /// The latest `iat` of each kind.
    package private(set) var issuedAt: [Kind: Date]

    /// A word with the given latest issue times.
    package init(issuedAt: [Kind: Date] = [:]) {
        self.issuedAt = issuedAt
    }

    /// The latest `kind` event's issue time, if any.
    package subscript(_ kind: Kind) -> Date? { issuedAt[kind] }

    /// This word with `kind` issued at `date` taken in, unless a later one of that kind is known.
    package func recording(_ kind: Kind, at date: Date) -> GoogleAccountWord {
        var word = self
        if let known = issuedAt[kind], known >= date { return word }
        word.issuedAt[kind] = date
        return word
    }

    /// The events this word stands for, oldest first, so applying them in turn leaves what
    /// Google's latest word says (an `enabled` after a `disabled` wins, and the other way round).
    package var events: [(kind: Kind, issuedAt: Date)] {
        issuedAt.map { (kind: $0.key, issuedAt: $0.value) }.sorted { $0.issuedAt < $1.issuedAt || $0.issuedAt == $1.issuedAt && $0.kind.order < $1.kind.order }
    }
}

extension GoogleAccountWord.Kind {
    /// Among events issued in the same second, the order that ends on the stricter word.
    fileprivate var order: Int {
        switch self {
        case .enabled: 0
        case .disabled: 1
        case .revoked: 2
        case .purged: 3
        }
    }
}
