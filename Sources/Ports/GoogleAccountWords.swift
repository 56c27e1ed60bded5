#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where Google's latest word on each Google account is kept (``GoogleAccountWord``): the
/// security-events receiver records it before it looks for the account's grants, and every
/// write of a usable grant reads it afterwards, so whichever comes second, the event or the
/// write, sees the other. Reads are strongly consistent, by key. Records are kept at least
/// ``googleAccountWordsKeptFor`` after their latest event.
package protocol GoogleAccountWords: Sendable {
    /// Google's word on `subject` (a Google account's `sub`), empty when it never said anything.
    /// - Throws: `StoreError` when it cannot be read.
    func word(of subject: String) async throws -> GoogleAccountWord

    /// Takes in `kind`, issued at `issuedAt`, for `subject`; a later event of that kind stays.
    /// Also notes `subject` among the accounts Google spoke of at this moment
    /// (``accounts(spokenOfSince:)``).
    /// - Throws: `StoreError` when it cannot be written.
    func record(_ kind: GoogleAccountWord.Kind, issuedAt: Date, for subject: String) async throws

    /// The accounts whose word was recorded since `date` (at least: a store may return more),
    /// for the refresh run to apply to grants that a lagging listing hid from the receiver.
    /// - Throws: `StoreError` when it cannot be read.
    func accounts(spokenOfSince date: Date) async throws -> [String]
}

/// How long Google's word is kept: as long as Google redelivers, and longer than a grant goes
/// unrefreshed in keep-alive mode (a day), so no proof can predate a forgotten event.
package let googleAccountWordsKeptFor: TimeInterval = 30 * 86_400
