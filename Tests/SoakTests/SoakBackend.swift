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

    /// If the user's secret is scheduled for deletion: a reconnect through the product's
    /// own ``TokenVault/store(_:for:)`` that restores it and then loses every
    /// compare-and-swap (409), and the secret as that leaves it. Also whether the deleted
    /// secret's tags said connected before (an overtaken writer's tags that landed after
    /// the disconnect's mark, which the reconnect must repair). `nil` when nothing was deleted.
    func failedReconnect(_ userID: String) async throws -> (state: FinalState, deletedTaggedConnected: Bool)? {
        let name = Self.secretName(userID)
        guard let description = try? await secrets.describeSecret(name: name), description.deletedDate != nil,
              let user = UserID(userID)
        else { return nil }
        do {
            _ = try await TokenVault(secrets: LosingWritesSecretStore(inner: secrets)).store(IncomingTokens(accessToken: "ya29.soak-probe"), for: user)
            throw SoakError("a reconnect whose every write loses succeeded for \(userID)")
        } catch let error as StoreError where error == .conflict {
            return (try await finalState(of: userID), FinalState.readsConnected(tags: description.tags))
        }
    }

    private static func secretName(_ userID: String) -> String { "gmail/user/\(userID)" }
}
