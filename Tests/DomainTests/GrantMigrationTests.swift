import Foundation
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `GrantMigration` from Secrets Manager to the DynamoDB token table and back, on a private
/// moto_server (DynamoDB, KMS, Secrets Manager): 1,000 grants copied and verified, a rerun
/// that changes nothing, a source change picked up, a deleted grant left behind.
@Suite("Grant migration between Secrets Manager and DynamoDB")
struct GrantMigrationTests {
    @Test("1,000 grants round-trip: copied and verified, idempotent, newer source values win, deleted ones skipped")
    func roundTrip() async throws {
        let server = try await MotoServer.launchPrivate()
        let (source, target) = try await Self.stores(on: server)

        let users = (0..<1_000).map { String(format: "mig-%04d", $0) }
        func value(_ user: String, _ access: String = "first") -> String {
            #"{"access_token":"ya29.\#(user)-\#(access)","refresh_token":"1//\#(user)","status":"active"}"#
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, user) in users.enumerated() {
                if index >= 4 { try await group.next() }
                group.addTask { try await source.create(user, value: value(user), attributes: ["paypulse:status": "active", "n": user]) }
            }
            try await group.waitForAll()
        }
        try await source.create("mig-deleted", value: value("mig-deleted"), attributes: [:])
        try await source.delete("mig-deleted", recoveryWindowDays: 7)

        let first = try await GrantMigration(from: source, to: target, userPrefix: "mig-").run()
        #expect(first.listed == 1_001)
        #expect(first.copied == 1_000 && first.verified == 1_000 && first.skippedDeleted == 1)
        #expect(first.failures.isEmpty && first.complete)
        for user in [users[0], users[499], users[999]] {
            #expect(try await target.read(user).value == value(user))
            #expect(try await target.state(of: user).attributes == ["paypulse:status": "active", "n": user])
        }
        await #expect(throws: StoreError.notFound) { try await target.read("mig-deleted") }

        let again = try await GrantMigration(from: source, to: target, userPrefix: "mig-").run()
        #expect(again.unchanged == 1_000 && again.copied == 0 && again.updated == 0 && again.complete)

        let changed = users[42]
        let held = try await source.read(changed)
        try await source.replace(changed, expected: held.version, value: value(changed, "second"), attributes: nil)
        // A disconnect in the source between two runs: its deletion is carried over.
        let disconnected = users[7]
        try await source.mark(disconnected, attributes: ["paypulse:status": "revoked", "n": disconnected])
        try await source.delete(disconnected, recoveryWindowDays: 7)
        let catchUp = try await GrantMigration(from: source, to: target, userPrefix: "mig-").run()
        #expect(catchUp.updated == 1 && catchUp.unchanged == 998 && catchUp.deletedInTarget == 1 && catchUp.complete)
        #expect(try await target.read(changed).value == value(changed, "second"))
        #expect(try await target.state(of: disconnected).isScheduledForDeletion)

        // Back again: every value already equal, so nothing is written and all verify.
        let back = try await GrantMigration(from: target, to: source, userPrefix: "mig-").run()
        #expect(back.listed == 1_000 && back.unchanged == 999 && back.skippedDeleted == 1 && back.complete)
        withExtendedLifetime(server) {}
    }

    @Test("a disconnect and then a reconnect between runs converges, Secrets Manager to DynamoDB and back")
    func reconnectBetweenRuns() async throws {
        let server = try await MotoServer.launchPrivate()
        let (secrets, table) = try await Self.stores(on: server)
        try await MigrationDeletionTests.disconnectThenReconnect(from: secrets, to: table, prefix: "to-table-")
        try await MigrationDeletionTests.disconnectThenReconnect(from: table, to: secrets, prefix: "to-secrets-")
        withExtendedLifetime(server) {}
    }

    /// Secrets Manager and a new DynamoDB token table (with its KMS key) on `server`.
    private static func stores(on server: MotoServer) async throws -> (SecretsManagerGrantStore, DynamoDBGrantStore) {
        let secrets = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)))
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: server.endpoint))
        let table = DynamoDBGrantStore(
            client: try AWSTestClients.dynamoDB(endpoint: server.endpoint), table: "paypulse-gmail-tokens",
            cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try await kms.createKey())), due: .defaultRefresh
        )
        try await table.createTableIfNeeded()
        return (secrets, table)
    }
}
