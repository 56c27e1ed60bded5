import Foundation

/// The calls made on recording ports (``CallRecordingSecretStore``,
/// ``CallRecordingUserDirectory``, ``CallRecordingGoogleOAuth``), reads included, in
/// order, as `Port.operation(name)` lines, so a test can assert that a refused request
/// touched nothing at all.
package final class StoreCallLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    /// Creates an empty log.
    package init() {}

    /// Appends one call.
    package func record(_ call: String) { lock.withLock { recorded.append(call) } }

    /// Every call so far.
    package var calls: [String] { lock.withLock { recorded } }

    /// Forgets the calls so far (e.g. after seeding).
    package func reset() { lock.withLock { recorded.removeAll() } }
}
