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

    /// When a value says it was written (a token set's `updated_at`), or `nil` when it does
    /// not say. A store keys and lists a grant from this date rather than from its own write,
    /// so a copy (a migration) keeps the original's clock instead of restarting it.
    public let valueWritten: @Sendable (_ value: String) -> Date?

    /// Wraps a due rule; `valueWritten` reads a value's own write date (none by default).
    public init(
        dueDate: @escaping @Sendable (_ attributes: [String: String], _ written: Date) -> Date?,
        valueWritten: @escaping @Sendable (_ value: String) -> Date? = { _ in nil }
    ) {
        self.dueDate = dueDate
        self.valueWritten = valueWritten
    }

    /// The date a write of `value` at `now` is keyed from: the value's own write date, never
    /// later than `now` (a date ahead of the clock must not put the grant off).
    public func written(_ value: String, now: Date) -> Date {
        valueWritten(value).map { min($0, now) } ?? now
    }
}
