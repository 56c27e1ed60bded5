#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseEmbedded
import PayPulsePorts
import Testing

@Suite("Input limits Secrets Manager enforces")
struct ValidationTests {
    @Test(arguments: ["junk!!", "", "bm90IGEgdG9rZW4=", Data("v1:bad name".utf8).base64EncodedString()])
    func aJunkNextTokenIsAnInvalidRequest(_ token: String) async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            await expectStoreError(.invalidRequest) {
                try await store.listSecrets(namePrefix: "", includePlannedDeletion: false, maxResults: 10, nextToken: token)
            }
        }
    }

    @Test(arguments: [0, 101])
    func pageSizeIsOneToAHundred(_ size: Int) async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            await expectStoreError(.invalidRequest) {
                try await store.listSecrets(namePrefix: "", includePlannedDeletion: false, maxResults: size, nextToken: nil)
            }
        }
    }

    @Test(arguments: ["", "has space", "ünïcode", "semi;colon", String(repeating: "a", count: 513)])
    func badNamesAreRefused(_ name: String) async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            await expectStoreError(.invalidRequest) {
                try await store.createSecret(name: name, value: "v", tags: [:], clientRequestToken: newToken())
            }
        }
    }

    @Test func allowedNameCharactersAndLengthAreAccepted() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            for name in ["a/b_c+d=e.f@g-H9", String(repeating: "z", count: 512)] {
                _ = try await store.createSecret(name: name, value: "v", tags: [:], clientRequestToken: newToken())
            }
        }
    }

    @Test func valuesAreLimitedTo65536Bytes() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            let largest = String(repeating: "x", count: 65_536)
            _ = try await store.createSecret(name: "big", value: largest, tags: [:], clientRequestToken: newToken())
            #expect(try await store.getSecretValue(name: "big", stage: .current).string == largest)
            await expectStoreError(.invalidRequest) {
                try await store.putSecretValue(name: "big", value: largest + "x", clientRequestToken: newToken())
            }
            // Bytes, not characters: 32,769 two-byte characters are too many.
            await expectStoreError(.invalidRequest) {
                try await store.putSecretValue(
                    name: "big", value: String(repeating: "é", count: 32_769), clientRequestToken: newToken())
            }
        }
    }

    @Test func tokensAndStageMovesAreChecked() async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            await expectStoreError(.invalidRequest) {
                try await store.createSecret(name: "s", value: "v", tags: [:], clientRequestToken: "short")
            }
            let first = try await store.createSecret(name: "s", value: "v", tags: [:], clientRequestToken: newToken())
            await expectStoreError(.invalidRequest) {
                try await store.updateSecretVersionStage(name: "s", stage: .pending, moveTo: nil, removeFrom: nil)
            }
            await expectStoreError(.invalidRequest) {
                try await store.updateSecretVersionStage(name: "s", stage: .current, moveTo: nil, removeFrom: first)
            }
            await expectStoreError(.invalidRequest) {
                try await store.tagResource(name: "s", tags: ["": "empty key"])
            }
        }
    }

    @Test(arguments: [6, 31, 0])
    func recoveryWindowIsSevenToThirtyDays(_ days: Int) async throws {
        try await withStateDirectory { directory in
            let store = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
            _ = try await store.createSecret(name: "s", value: "v", tags: [:], clientRequestToken: newToken())
            await expectStoreError(.invalidRequest) { try await store.deleteSecret(name: "s", recoveryWindowDays: days) }
            #expect(try await store.describeSecret(name: "s").deletedDate == nil)
        }
    }
}
