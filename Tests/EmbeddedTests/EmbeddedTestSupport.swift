#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseEmbedded
import PayPulsePorts
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` with the path of a not-yet-existing directory in the temporary directory,
/// then removes it. The store under test creates it, so its mode can be checked.
func withStateDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("paypulse-embedded-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A logger that drops everything.
let quietLogger = Logger(label: "paypulse.embedded.test") { _ in SwiftLogNoOpLogHandler() }

/// A clock the test moves by hand.
final class FakeClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_750_000_000))

    /// The current fake time.
    @Sendable func now() -> Date { date.withLock { $0 } }

    /// Moves the clock forward.
    func advance(days: Double) { date.withLock { $0 = $0.addingTimeInterval(days * 86_400) } }
}

/// A fresh client request token.
func newToken() -> String { SecretVersionID.random().rawValue }

/// The permission bits of `path`, or `nil` when it does not exist.
func permissions(of path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// Expects `body` to throw a ``StoreError`` with code `code`.
func expectStoreError<T>(
    _ code: StoreError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code.codeName), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error == code, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
}
