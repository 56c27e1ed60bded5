#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signing time in the two UTC forms SigV4 uses: `20150830T123600Z` for `X-Amz-Date`
/// and `20150830` for the credential scope.
///
/// Computed with integer arithmetic from the Unix epoch instead of a date formatter:
/// formatters live in FoundationInternationalization (large, locale-dependent), and a
/// fixed UTC layout needs none of that.
struct AMZDate: Sendable, Hashable {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    let timestamp: String
    /// `yyyyMMdd`.
    let day: String

    init(_ date: Date) {
        // Floor, not truncate, so instants before 1970 and fractional seconds still land
        // in the right second.
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (days, secondOfDay) = Self.floorDivide(seconds, 86_400)
        let (year, month, dayOfMonth) = Self.civilDate(daysSinceEpoch: days)
        let day = Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(dayOfMonth, 2)
        let time = Self.pad(secondOfDay / 3600, 2) + Self.pad(secondOfDay % 3600 / 60, 2)
            + Self.pad(secondOfDay % 60, 2)
        self.day = day
        self.timestamp = day + "T" + time + "Z"
    }

    /// Converts days since 1970-01-01 to a proleptic Gregorian (year, month, day), by
    /// counting in 400-year eras that start on 1 March (so the leap day ends a year).
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let daysSince0000March1 = daysSinceEpoch + 719_468
        let (era, dayOfEra) = floorDivide(daysSince0000March1, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchBasedMonth = (5 * dayOfYear + 2) / 153  // 0 = March … 11 = February
        let dayOfMonth = dayOfYear - (153 * marchBasedMonth + 2) / 5 + 1
        let month = marchBasedMonth < 10 ? marchBasedMonth + 3 : marchBasedMonth - 9
        let year = era * 400 + yearOfEra + (month <= 2 ? 1 : 0)
        return (year, month, dayOfMonth)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0
            ? (value / divisor - 1, remainder + divisor)
            : (value / divisor, remainder)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
