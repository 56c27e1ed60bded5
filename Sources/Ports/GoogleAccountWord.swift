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

    /// The latest `iat` of each kind; of `disabled` and `enabled`, only the account's latest
    /// state is kept (the other is dropped), so two state events issued in the same second
    /// end on the one delivered last, as the receiver applies them.
    package private(set) var issuedAt: [Kind: Date]

    /// A word with the given latest issue times (of a `disabled` and an `enabled`, the later
    /// is kept; of two in the same second, `disabled`).
    package init(issuedAt: [Kind: Date] = [:]) {
        var issued = issuedAt
        if let disabled = issued[.disabled], let enabled = issued[.enabled] { issued[enabled > disabled ? .disabled : .enabled] = nil }
        self.issuedAt = issued
    }

    /// The latest `kind` event's issue time, if any.
    package subscript(_ kind: Kind) -> Date? { issuedAt[kind] }

    /// This word with `kind` issued at `date` taken in, unless Google said later: a later
    /// event of that kind, or for the account's state, a later state event (one of the same
    /// second is replaced: the later delivery wins).
    package func recording(_ kind: Kind, at date: Date) -> GoogleAccountWord {
        var word = self
        if let other = kind.otherState {
            if let known = issuedAt[other], known > date { return word }
            if let known = issuedAt[kind], known > date { return word }
            word.issuedAt[other] = nil
        } else if let known = issuedAt[kind], known >= date {
            return word
        }
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
    /// For a state event (`disabled`, `enabled`), the other state; `nil` otherwise.
    package var otherState: Self? {
        switch self {
        case .disabled: .enabled
        case .enabled: .disabled
        case .revoked, .purged: nil
        }
    }

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
