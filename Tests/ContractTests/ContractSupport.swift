#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Names and tokens unique to one test, so the suites can share a store with other runs.
struct Scope {
    /// `test/<uuid>/`: every secret a test makes starts with it.
    let prefix = "test/\(UUID().uuidString.lowercased())/"

    /// A secret name inside this test's prefix.
    func name(_ suffix: String) -> String { prefix + suffix }
}

/// A fresh client request token (36 characters, as AWS requires 32–64).
func newToken() -> String { SecretVersionID.random().rawValue }

/// Expects `body` to throw a ``StoreError`` with one of `codes`.
func expectStoreError<T>(
    _ codes: StoreError..., sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(codes.map(\.codeName)), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(codes.contains(error), "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
}

extension SecretStore {
    /// Every secret under `prefix`, following `nextToken` to the end.
    func listAll(prefix: String, includePlannedDeletion: Bool = false, pageSize: Int = 100) async throws -> [SecretSummary] {
        var all: [SecretSummary] = []
        var token: String?
        repeat {
            let page = try await listSecrets(
                namePrefix: prefix, includePlannedDeletion: includePlannedDeletion,
                maxResults: pageSize, nextToken: token
            )
            all += page.secrets
            token = page.nextToken
        } while token != nil
        return all
    }
}
