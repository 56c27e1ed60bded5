#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a grant falls due for the refresh job, told from what a write knows: its listing
/// attributes and when it is written. A store with a due index (``GrantStore/listDue(userPrefix:dueBy:cursor:limit:)``)
/// keys each grant by this date at every write, so a run reads the grants due, not every grant.
///
/// The domain supplies it (the refresh mode decides what "due" means); every process that
/// writes grants must use the same one as the refresh job, or grants are keyed for another
/// schedule until their next write.
public struct GrantDuePolicy: Sendable {
    /// The date a grant with these attributes, its value written at `written`, falls due;
    /// `nil` when it never does (nothing left to refresh), so the index leaves it out.
    public let dueDate: @Sendable (_ attributes: [String: String], _ written: Date) -> Date?

    /// Wraps a due rule.
    public init(dueDate: @escaping @Sendable (_ attributes: [String: String], _ written: Date) -> Date?) {
        self.dueDate = dueDate
    }
}
