#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// ``GoogleAccountWords`` in memory, for handler and domain tests: the stores' semantics, a
/// call log, and a scripted fault.
package actor InMemoryGoogleAccountWords: GoogleAccountWords {
    private var words: [String: GoogleAccountWord] = [:]
    private var recordedAt: [String: Date] = [:]
    private let now: @Sendable () -> Date
    private var fault: StoreError?
    /// Every call, in order: `word(<sub>)`, `record(<kind>, <sub>)` and `accounts`.
    package private(set) var calls: [String] = []

    /// No word on any account, recorded by `now`.
    package init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Makes every call fail with `error` (or succeed again with `nil`).
    package func setFault(_ error: StoreError?) { fault = error }

    package func word(of subject: String) throws -> GoogleAccountWord {
        calls.append("word(\(subject))")
        if let fault { throw fault }
        return words[subject] ?? GoogleAccountWord()
    }

    package func record(_ kind: GoogleAccountWord.Kind, issuedAt: Date, for subject: String) throws {
        calls.append("record(\(kind.rawValue), \(subject))")
        if let fault { throw fault }
        if subject.isEmpty { throw StoreError.invalidRequest.with(message: "an empty Google account") }
        words[subject] = (words[subject] ?? GoogleAccountWord()).recording(kind, at: issuedAt)
        recordedAt[subject] = now()
    }

    package func accounts(spokenOfSince date: Date) throws -> [String] {
        calls.append("accounts")
        if let fault { throw fault }
        return recordedAt.filter { $0.value >= date }.keys.sorted()
    }
}
