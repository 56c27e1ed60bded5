import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Every typed Secrets Manager operation against moto_server.
@Suite("Secrets Manager operations against moto_server")
struct SecretsManagerOperationsTests {
    private func client() async throws -> SecretsManagerClient {
        try AWSTestClients.secretsManager(endpoint: try await MotoServer.shared().endpoint)
    }

    private func uniqueName(_ suffix: String = "s") -> String { "test/\(UUID().uuidString.lowercased())/\(suffix)" }

    @Test("create, read by stage and by version, describe with tags and stages")
    func createReadDescribe() async throws {
        let sm = try await client()
        let name = uniqueName()
        let version = try await sm.createSecret(name: name, value: "{\"v\":1}", tags: ["paypulse:status": "active"], clientRequestToken: "11111111-1111-4111-8111-111111111111")
        #expect(version.rawValue == "11111111-1111-4111-8111-111111111111")

        let current = try await sm.getSecretValue(name: name, stage: .current)
        #expect(current.string == "{\"v\":1}")
        #expect(current.versionID == version)
        #expect(current.stages.contains(.current))
        #expect(try await sm.getSecretValue(name: name, versionID: version).string == "{\"v\":1}")

        let description = try await sm.describeSecret(name: name)
        #expect(description.tags == ["paypulse:status": "active"])
        #expect(description.deletedDate == nil)
        #expect(description.currentVersion == version)
    }

    @Test("PutSecretValue moves AWSCURRENT and leaves AWSPREVIOUS; the token makes it idempotent")
    func putAndIdempotency() async throws {
        let sm = try await client()
        let name = uniqueName()
        let first = try await sm.createSecret(name: name, value: "one", tags: [:], clientRequestToken: UUID().uuidString)
        let token = UUID().uuidString
        let second = try await sm.putSecretValue(name: name, value: "two", clientRequestToken: token, stages: [.current])
        #expect(try await sm.getSecretValue(name: name, stage: .current).string == "two")
        #expect(try await sm.getSecretValue(name: name, stage: .previous).versionID == first)

        // Same token, same value: a no-op that answers the same version.
        #expect(try await sm.putSecretValue(name: name, value: "two", clientRequestToken: token, stages: [.current]) == second)
        // Same token, another value: refused.
        await #expect(throws: AWSError.self) {
            try await sm.putSecretValue(name: name, value: "three", clientRequestToken: token, stages: [.current])
        }
        let refused = await errorType { try await sm.putSecretValue(name: name, value: "three", clientRequestToken: token, stages: [.current]) }
        #expect(refused == "ResourceExistsException")
        #expect(try await sm.getSecretValue(name: name, stage: .current).string == "two")
    }

    @Test("UpdateSecretVersionStage is a compare-and-swap on RemoveFromVersionId")
    func compareAndSwap() async throws {
        let sm = try await client()
        let name = uniqueName()
        let original = try await sm.createSecret(name: name, value: "original", tags: [:], clientRequestToken: UUID().uuidString)
        let pending = try await sm.putSecretValue(name: name, value: "refreshed", clientRequestToken: UUID().uuidString, stages: [.pending])
        #expect(try await sm.getSecretValue(name: name, stage: .current).string == "original")

        // Someone stores newer tokens meanwhile: AWSCURRENT moves away from `original`.
        _ = try await sm.putSecretValue(name: name, value: "newer", clientRequestToken: UUID().uuidString, stages: [.current])
        let refused = await errorType {
            try await sm.updateSecretVersionStage(name: name, stage: .current, moveTo: pending, removeFrom: original)
        }
        #expect(refused == "InvalidParameterException")
        #expect(try await sm.getSecretValue(name: name, stage: .current).string == "newer")

        // From the version that does hold it, the move succeeds.
        let holder = try await sm.getSecretValue(name: name, stage: .current).versionID
        try await sm.updateSecretVersionStage(name: name, stage: .current, moveTo: pending, removeFrom: holder)
        #expect(try await sm.getSecretValue(name: name, stage: .current).string == "refreshed")
    }

    @Test("ListSecrets filters by name prefix and pages through 27 secrets")
    func listAndPaginate() async throws {
        let sm = try await client()
        let prefix = "test/\(UUID().uuidString.lowercased())/"
        var created: Set<String> = []
        for index in 0..<27 {
            let name = prefix + "user-\(index)"
            _ = try await sm.createSecret(name: name, value: "v", tags: ["paypulse:expires-at": "\(index)"], clientRequestToken: UUID().uuidString)
            created.insert(name)
        }
        _ = try await sm.createSecret(name: "test/other-\(UUID().uuidString)", value: "v", tags: [:], clientRequestToken: UUID().uuidString)

        var seen: [String] = []
        var pages = 0
        var token: String?
        repeat {
            let page = try await sm.listSecrets(namePrefix: prefix, includePlannedDeletion: false, maxResults: 10, nextToken: token)
            seen += page.secrets.map(\.name)
            #expect(page.secrets.allSatisfy { $0.tags["paypulse:expires-at"] != nil })
            token = page.nextToken
            pages += 1
        } while token != nil && pages < 10
        #expect(pages >= 3)
        #expect(seen.count == 27)
        #expect(Set(seen) == created)
    }

    @Test("DeleteSecret with a recovery window, then RestoreSecret")
    func deleteAndRestore() async throws {
        let sm = try await client()
        let name = uniqueName()
        _ = try await sm.createSecret(name: name, value: "keep me", tags: [:], clientRequestToken: UUID().uuidString)
        let deletion = try await sm.deleteSecret(name: name, recoveryWindowDays: 7)
        #expect(deletion != nil)
        #expect(try await sm.describeSecret(name: name).deletedDate != nil)
        #expect(await errorType { try await sm.getSecretValue(name: name, stage: .current) } == "InvalidRequestException")
        let hidden = try await sm.listSecrets(namePrefix: name, includePlannedDeletion: false, maxResults: 10, nextToken: nil)
        #expect(hidden.secrets.isEmpty)
        let shown = try await sm.listSecrets(namePrefix: name, includePlannedDeletion: true, maxResults: 10, nextToken: nil)
        #expect(shown.secrets.map(\.name) == [name])

        try await sm.restoreSecret(name: name)
        #expect(try await sm.describeSecret(name: name).deletedDate == nil)
        #expect(try await sm.getSecretValue(name: name, stage: .current).string == "keep me")
    }

    @Test("TagResource adds and overwrites, UntagResource removes")
    func tags() async throws {
        let sm = try await client()
        let name = uniqueName()
        _ = try await sm.createSecret(name: name, value: "v", tags: ["a": "1"], clientRequestToken: UUID().uuidString)
        try await sm.tagResource(name: name, tags: ["a": "2", "b": "3"])
        #expect(try await sm.describeSecret(name: name).tags == ["a": "2", "b": "3"])
        try await sm.untagResource(name: name, tagKeys: ["a", "absent"])
        #expect(try await sm.describeSecret(name: name).tags == ["b": "3"])
    }

    @Test("a missing secret is ResourceNotFoundException, surfaced without retry")
    func notFound() async throws {
        let sm = try await client()
        #expect(await errorType { try await sm.describeSecret(name: uniqueName("absent")) } == "ResourceNotFoundException")
    }
}

/// The AWS error type a call threw, or `nil`.
func errorType<T>(_ body: () async throws -> T) async -> String? {
    do {
        _ = try await body()
        return nil
    } catch let error as AWSError {
        return error.type
    } catch {
        return "\(type(of: error))"
    }
}
