#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where each user's grant (one token-set document) lives: the storage port of the token
/// vault and the refresh job, shaped by what they do rather than by one AWS API.
///
/// A grant is keyed by the user id; it holds one value (the token-set JSON), an opaque
/// ``GrantVersion`` that changes with every value write, and listing attributes: plain,
/// non-secret facts (status, expiry...) that a listing and ``state(of:)`` show without
/// reading the value, so a caller needs no permission to read values to see them.
///
/// Semantics every implementation keeps (the contract suite in `Tests/ContractTests`
/// runs on each):
/// - ``replace(_:expected:value:attributes:)`` is a compare-and-swap: it writes only if
///   `expected` is still the current version, else throws ``StoreError/conflict`` and
///   the current value stays.
/// - A grant deleted with a recovery window shows its deletion date in ``state(of:)``
///   and can be restored, but is neither read nor written until then
///   (``StoreError/scheduledForDeletion``); listing hides it unless asked.
/// - Listing attributes written with a value are those given; ``mark(_:attributes:)``
///   sets the given ones and leaves attributes it does not name as they are.
package protocol GrantStore: GrantStates {
    /// Whether a value and its attributes are written by one atomic write. When `false`
    /// (Secrets Manager: value and tags are separate calls), another writer can swap in a
    /// value between our value write and our attribute write, and the caller checks for
    /// that afterwards.
    var writesAttributesWithValue: Bool { get }

    /// The current value with its version.
    /// - Throws: ``StoreError/notFound`` when no grant is stored,
    ///   ``StoreError/scheduledForDeletion`` when it is deleted.
    func read(_ user: String) async throws -> GrantValue

    /// Creates the grant with its first value and attributes.
    /// - Throws: ``StoreError/alreadyExists`` when one is stored (a store may report one
    ///   scheduled for deletion as ``StoreError/scheduledForDeletion`` instead).
    @discardableResult
    func create(_ user: String, value: String, attributes: [String: String]) async throws -> GrantVersion

    /// Compare-and-swap: stores `value` only if `expected` is still current, and then
    /// `attributes` unless `nil` (the attributes are left as they are).
    /// - Returns: the new version.
    /// - Throws: ``StoreError/conflict`` when another value was stored since `expected`
    ///   (nothing written); ``StoreError/notFound`` / ``StoreError/scheduledForDeletion``.
    @discardableResult
    func replace(_ user: String, expected: GrantVersion, value: String, attributes: [String: String]?) async throws -> GrantVersion

    /// Sets listing attributes without writing the value; attributes not named stay. The
    /// version may or may not move (callers compare-and-swap from a version read after).
    /// - Parameter expected: the version the attributes describe. A store that writes
    ///   attributes with the value (``writesAttributesWithValue``) marks only while it is
    ///   current: a newer value carries its own attributes, which a mark must not overwrite.
    ///   One that cannot condition the mark writes anyway; the caller checks afterwards.
    /// - Throws: ``StoreError/notFound``; ``StoreError/scheduledForDeletion`` where the store
    ///   refuses it; ``StoreError/conflict`` when `expected` is no longer current (nothing written).
    func mark(_ user: String, attributes: [String: String], expected: GrantVersion?) async throws

    /// Deletes the grant after a recovery window of 7 to 30 days, only while `expected` is
    /// its current version when one is given: a value written after the one the caller
    /// decided on (a reconnect after a disconnect's mark) is never deleted with it.
    ///
    /// A store that can condition the delete (DynamoDB) leaves the grant untouched; one that
    /// cannot (Secrets Manager) deletes, finds the newer version current, and restores it.
    /// - Returns: the date it will be deleted for good.
    /// - Throws: ``StoreError/conflict`` when `expected` is no longer current (the grant
    ///   stands); ``StoreError/notFound`` / ``StoreError/scheduledForDeletion``.
    @discardableResult
    func delete(_ user: String, expected: GrantVersion?, recoveryWindowDays: Int) async throws -> Date

    /// Cancels a scheduled deletion.
    func restore(_ user: String) async throws

    /// Whether ``delete(_:expected:recoveryWindowDays:)`` is more than one call (Secrets
    /// Manager: delete, compare, restore), so that a failure between them can leave a newer
    /// value deleted: the refresh run then lists deleted grants too and restores one whose
    /// attributes show a value newer than the one deleted (``GrantSummary/mayHoldNewerValue``).
    var deletesInSteps: Bool { get }

    /// One page of the grants whose user id starts with `userPrefix` (case-sensitive), with
    /// their attributes, no values. Pages come in no promised order.
    /// - Parameters:
    ///   - includeDeleted: whether grants scheduled for deletion are listed too.
    ///   - cursor: `nil` for the first page, then the previous page's ``GrantPage/cursor``.
    func list(userPrefix: String, includeDeleted: Bool, cursor: String?, limit: Int) async throws -> GrantPage

    /// One page of the grants not deleted, user id starting with `userPrefix`, that may be
    /// due by `dueBy`: every grant whose ``GrantDuePolicy`` date is at or before it is
    /// listed (on some page); a store with a due index lists no other, so a run's cost
    /// grows with the grants due, not with the users. A store without one lists every grant
    /// (the default), and the caller tells the due ones from the attributes, as it must
    /// anyway. Pages may be empty before the last one.
    func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage

    /// Whether ``listDue(userPrefix:dueBy:cursor:limit:)`` lists only what may be due (a due
    /// index), so a refresh run's `scanned` counts those rather than every grant.
    var listsOnlyDue: Bool { get }

    /// The users whose grant carries the listing attribute `attribute` equal to `value`,
    /// found through an index, never a scan: Secrets Manager's `tag-value` filter, a sparse
    /// DynamoDB index per attribute, the embedded store's index on tag values. Grants
    /// scheduled for deletion may be included. An index may lag its writes (Secrets
    /// Manager's listing by up to minutes), and an attribute may outlive the value it
    /// described: the caller reads each grant and trusts its value alone.
    func users(with attribute: IndexedGrantAttribute, equalTo value: String) async throws -> [String]
}

/// The listing attributes every store keeps an index on, so that grants are found by their
/// value (``GrantStore/users(with:equalTo:)``): what Google's security events name.
package enum IndexedGrantAttribute: String, Sendable, CaseIterable {
    /// The Google account's `sub`.
    case googleSubject = "paypulse:google-sub"
    /// A keyed digest of the refresh token's first 16 characters (`token-revoked`'s
    /// `prefix` identifier).
    case refreshTokenPrefix = "paypulse:rt-prefix"
    /// A keyed digest of the refresh token's `hash_base64_sha512_sha512` identifier.
    case refreshTokenHash = "paypulse:rt-hash"
}

extension GrantStore {
    /// Sets listing attributes whatever the current version (a copy, a test).
    package func mark(_ user: String, attributes: [String: String]) async throws {
        try await mark(user, attributes: attributes, expected: nil)
    }

    /// Deletes the grant whatever its current version (a migration copying a deleted one, a test).
    @discardableResult
    package func delete(_ user: String, recoveryWindowDays: Int) async throws -> Date {
        try await delete(user, expected: nil, recoveryWindowDays: recoveryWindowDays)
    }

    /// A store without a due index lists every grant.
    package var listsOnlyDue: Bool { false }

    /// A store deletes conditionally in one step unless it says otherwise.
    package var deletesInSteps: Bool { false }

    /// Every grant not deleted: the listing of a store without a due index.
    package func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
        try await list(userPrefix: userPrefix, includeDeleted: false, cursor: cursor, limit: limit)
    }
}

/// The part of the grant port that never reads a value: what a function that may not read
/// token values (user-profile) is given, so it builds no cipher and holds no way to decrypt.
package protocol GrantStates: Sendable {
    /// The grant's attributes, deletion date and current version, without its value.
    /// - Throws: ``StoreError/notFound`` when no grant is stored.
    func state(of user: String) async throws -> GrantState
}

/// The version of a grant's value: an opaque token, compared only for equality and handed
/// back to ``GrantStore/replace(_:expected:value:attributes:)``.
package struct GrantVersion: Hashable, Sendable, CustomStringConvertible {
    /// The token as the store spells it.
    package let rawValue: String

    /// Wraps a token.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }
}

/// A grant's value as read, with the version to compare-and-swap from.
package struct GrantValue: Sendable, Equatable {
    /// The stored document.
    package var value: String
    /// The version read.
    package var version: GrantVersion

    /// Creates a value.
    package init(value: String, version: GrantVersion) {
        self.value = value
        self.version = version
    }
}

/// What ``GrantStore/state(of:)`` tells without reading the value.
package struct GrantState: Sendable, Equatable {
    /// The listing attributes.
    package var attributes: [String: String]
    /// When the grant was scheduled for deletion; `nil` when it is not.
    package var deletionDate: Date?
    /// The current version, if the store knows one.
    package var currentVersion: GrantVersion?

    /// Creates a state.
    package init(attributes: [String: String], deletionDate: Date?, currentVersion: GrantVersion?) {
        self.attributes = attributes
        self.deletionDate = deletionDate
        self.currentVersion = currentVersion
    }

    /// Whether the grant is scheduled for deletion.
    package var isScheduledForDeletion: Bool { deletionDate != nil }
}

/// One grant as listed: no value.
package struct GrantSummary: Sendable, Equatable {
    /// The user id.
    package var user: String
    /// The listing attributes.
    package var attributes: [String: String]
    /// When a value was last written (created or replaced), if the store tells; attribute
    /// writes may or may not move it, so only "a value was written at least this recently"
    /// may be read from it.
    package var lastWritten: Date?
    /// When it was scheduled for deletion; `nil` when it is not.
    package var deletionDate: Date?
    /// Whether the attributes were written for the current value, as far as the listing tells.
    package var attributesVersion: GrantAttributesVersion

    /// Creates a summary.
    package init(
        user: String, attributes: [String: String], lastWritten: Date?, deletionDate: Date?, attributesVersion: GrantAttributesVersion = .current
    ) {
        self.user = user
        self.attributes = attributes
        self.lastWritten = lastWritten
        self.deletionDate = deletionDate
        self.attributesVersion = attributesVersion
    }

    /// Whether a deleted grant may hold a value newer than the one its deleter decided on: a
    /// stepwise deletion (``GrantStore/deletesInSteps``) whose compare or restore failed after
    /// a reconnect wrote. Its attributes then either are stamped for another value than the
    /// current one, or say the current value was not marked for deletion: `statusAttribute`
    /// is not `deletedStatus`, the status every deleter marks a value with before deleting
    /// it. A grant deleted by a release that stamped nothing is never taken for one.
    package func mayHoldNewerValue(statusAttribute: String, deletedStatus: String) -> Bool {
        guard deletionDate != nil else { return false }
        switch attributesVersion {
        case .stale: return true
        case .current: return attributes[statusAttribute] != deletedStatus
        case .unstamped: return false
        }
    }
}

/// Whether a grant's listing attributes describe its current value. Where value and
/// attributes are one atomic write (DynamoDB) they always do; where the attributes are a
/// write of their own (Secrets Manager's tags), they carry the version they were written for,
/// and a listing compares it with the current version.
package enum GrantAttributesVersion: Sendable, Equatable {
    /// Written for the current value (or written with it).
    case current
    /// Written for another value than the current one: the write of the current value lost
    /// its tag write (refused, throttled, the process died), or a retag lost a race. Unless a
    /// refresh kept them on purpose (its value changes nothing they say but the expiry),
    /// they may say anything: the value must be read and the attributes rewritten from it.
    case stale
    /// Without a version stamp (written before stamps existed): nothing is known.
    case unstamped
}

/// A value write that landed whose attributes, a write of their own, did not
/// (``GrantStore/writesAttributesWithValue`` `false`): the change is stored, and the
/// listing shows the attributes as ``GrantAttributesVersion/stale`` until a reader rewrites
/// them from the value.
package struct AttributesNotWritten: Error, Sendable, CustomStringConvertible {
    /// The version the value was stored as.
    package let version: GrantVersion
    /// Why the attribute write failed.
    package let cause: String

    /// Wraps the failure of the attribute write after `version` was stored.
    package init(version: GrantVersion, cause: any Error) {
        self.version = version
        self.cause = "\(cause)"
    }

    package var description: String { "value stored as \(version), its attributes not written: \(cause)" }
}

/// One page of a grant listing.
package struct GrantPage: Sendable, Equatable {
    /// The grants on this page.
    package var grants: [GrantSummary]
    /// Where the next page starts; `nil` on the last page.
    package var cursor: String?

    /// Creates a page.
    package init(grants: [GrantSummary], cursor: String?) {
        self.grants = grants
        self.cursor = cursor
    }
}

/// When a grant falls due for the refresh job, told from what a write knows: its listing
/// attributes and when it is written. A store with a due index (``GrantStore/listDue(userPrefix:dueBy:cursor:limit:)``)
/// keys each grant by this date at every write, so a run reads the grants due, not every grant.
///
/// The domain supplies it (the refresh mode decides what "due" means); every process that
/// writes grants must use the same one as the refresh job, or grants are keyed for another
/// schedule until their next write.
package struct GrantDuePolicy: Sendable {
    /// The date a grant with these attributes, its value written at `written`, falls due;
    /// `nil` when it never does (nothing left to refresh), so the index leaves it out.
    package let dueDate: @Sendable (_ attributes: [String: String], _ written: Date) -> Date?

    /// When a value says it was written (a token set's `updated_at`), or `nil` when it does
    /// not say. A store keys and lists a grant from this date rather than from its own write,
    /// so a copy (a migration) keeps the original's clock instead of restarting it.
    package let valueWritten: @Sendable (_ value: String) -> Date?

    /// Wraps a due rule; `valueWritten` reads a value's own write date (none by default).
    package init(
        dueDate: @escaping @Sendable (_ attributes: [String: String], _ written: Date) -> Date?,
        valueWritten: @escaping @Sendable (_ value: String) -> Date? = { _ in nil }
    ) {
        self.dueDate = dueDate
        self.valueWritten = valueWritten
    }

    /// The date a write of `value` at `now` is keyed from: the value's own write date, never
    /// later than `now` (a date ahead of the clock must not put the grant off).
    package func written(_ value: String, now: Date) -> Date {
        valueWritten(value).map { min($0, now) } ?? now
    }
}

/// The operations of ``GrantStore`` by name: a function's composition lists those it can
/// reach, and each store says which calls (and so which IAM actions) serve each one.
package enum GrantOperation: String, Sendable, CaseIterable, Comparable {
    case state, read, create, replace, mark, delete, restore, list, listDue, findByAttribute

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
