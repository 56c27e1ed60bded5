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
public protocol GrantStore: Sendable {
    /// Whether a value and its attributes are written by one atomic write. When `false`
    /// (Secrets Manager: value and tags are separate calls), another writer can swap in a
    /// value between our value write and our attribute write, and the caller checks for
    /// that afterwards.
    var writesAttributesWithValue: Bool { get }

    /// The grant's attributes, deletion date and current version, without its value.
    /// - Throws: ``StoreError/notFound`` when no grant is stored.
    func state(of user: String) async throws -> GrantState

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

    /// Deletes the grant after a recovery window of 7 to 30 days.
    /// - Returns: the date it will be deleted for good.
    @discardableResult
    func delete(_ user: String, recoveryWindowDays: Int) async throws -> Date

    /// Cancels a scheduled deletion.
    func restore(_ user: String) async throws

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
}

extension GrantStore {
    /// Sets listing attributes whatever the current version (a copy, a test).
    public func mark(_ user: String, attributes: [String: String]) async throws {
        try await mark(user, attributes: attributes, expected: nil)
    }

    /// A store without a due index lists every grant.
    public var listsOnlyDue: Bool { false }

    /// Every grant not deleted: the listing of a store without a due index.
    public func listDue(userPrefix: String, dueBy: Date, cursor: String?, limit: Int) async throws -> GrantPage {
        try await list(userPrefix: userPrefix, includeDeleted: false, cursor: cursor, limit: limit)
    }
}

/// The operations of ``GrantStore`` by name: a function's composition lists those it can
/// reach, and each store says which calls (and so which IAM actions) serve each one.
public enum GrantOperation: String, Sendable, CaseIterable, Comparable {
    case state, read, create, replace, mark, delete, restore, list, listDue

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
