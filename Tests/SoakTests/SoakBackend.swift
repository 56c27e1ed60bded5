import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulseEmbedded
import PayPulsePorts
import PayPulseSigV4
import PayPulseTestSupport

/// One store the soak runs against: the environment that points every process at it, and
/// the harness's own view of it for seeding and for reading the final state.
struct SoakBackend {
    let name: String
    let environment: [String: String]
    let secrets: any SecretStore
    let users: any UserDirectory
    /// Keeps a private server alive, removes a state directory.
    let cleanUp: () -> Void

    private static let quiet = Logger(label: "soak") { _ in SwiftLogNoOpLogHandler() }

    /// The variables every process gets, and nothing inherited: the fake Google, and a
    /// refresh window of an hour so every set is due (stored ones expire in 1–10 minutes,
    /// refreshed ones in 3599 s), with no write pacing to slow the runs.
    private static func baseEnvironment(google: FakeGoogleServer) -> [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LOG_LEVEL": "info",
            "GOOGLE_TOKEN_ENDPOINT": google.tokenEndpoint, "GOOGLE_REVOKE_ENDPOINT": google.revokeEndpoint,
            "REFRESH_WINDOW_SECONDS": "3600", "REFRESH_MAX_WRITES_PER_SECOND": "10000", "REFRESH_CONCURRENCY": "8",
        ]
    }

    /// One SQLite file in a fresh state directory that every process opens.
    static func embedded(google: FakeGoogleServer) throws -> SoakBackend {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soak-state-\(UUID().uuidString)").path
        let database = try EmbeddedDatabase(stateDirectory: directory, logger: quiet)
        var environment = baseEnvironment(google: google)
        environment["PAYPULSE_STORE"] = "embedded"
        environment["PAYPULSE_STATE_DIR"] = directory
        return SoakBackend(
            name: "embedded", environment: environment, secrets: EmbeddedSecretStore(database: database, logger: quiet),
            users: EmbeddedUserDirectory(database: database, logger: quiet),
            cleanUp: { try? FileManager.default.removeItem(atPath: directory) }
        )
    }

    /// Secrets Manager and DynamoDB on a moto_server of the soak's own (moto is shared by
    /// no other test, so nobody else's requests race ours there).
    static func moto(google: FakeGoogleServer) async throws -> SoakBackend {
        let server = try await MotoServer.launchPrivate()
        let users = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: server.endpoint), table: "paypulse-users")
        try await users.createTableIfNeeded()
        var environment = baseEnvironment(google: google)
        environment["PAYPULSE_STORE"] = "aws"
        environment["AWS_REGION"] = AWSTestClients.region
        environment["AWS_ACCESS_KEY_ID"] = AWSTestClients.motoCredentials.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = AWSTestClients.motoCredentials.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = server.endpoint
        return SoakBackend(
            name: "moto", environment: environment, secrets: AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)),
            users: users, cleanUp: { withExtendedLifetime(server) {} }
        )
    }

    /// The user's secret as it is now (tags read first, then the value; a deletion in
    /// between reads as absent).
    func finalState(of userID: String) async throws -> FinalState {
        let name = Self.secretName(userID)
        let description: SecretDescription
        do {
            description = try await secrets.describeSecret(name: name)
        } catch let error as StoreError where error == .notFound {
            return .absent
        }
        if description.deletedDate != nil { return .absent }
        do {
            let value = try await secrets.getSecretValue(name: name, stage: .current)
            return .present(try GmailTokenSet.decode(value.string), tags: description.tags)
        } catch let error as StoreError where error == .notFound || error == .scheduledForDeletion {
            return .absent
        }
    }

    /// Restores the user's secret if it is scheduled for deletion, as a reconnect does
    /// before it writes, and reads it: what a reconnect that fails right after its
    /// restore leaves. `nil` when there was nothing to restore.
    func restoreDeleted(_ userID: String) async throws -> FinalState? {
        let name = Self.secretName(userID)
        guard let description = try? await secrets.describeSecret(name: name), description.deletedDate != nil else { return nil }
        try await secrets.restoreSecret(name: name)
        return try await finalState(of: userID)
    }

    private static func secretName(_ userID: String) -> String { "gmail/user/\(userID)" }
}
