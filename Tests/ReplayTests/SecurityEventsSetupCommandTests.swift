import Foundation
import PayPulseAWS
import PayPulseTestSupport
import Testing

/// `paypulse setup` through the built CLI creates the security events table on both AWS
/// stores (a deployment has DynamoDB either way), as the ledger expects it, and leaves it
/// alone the second time; the embedded store has nothing to create (its table is in the file).
@Suite("paypulse setup creates the security events table")
struct SecurityEventsSetupCommandTests {
    @Test("--store aws and --store dynamodb create the table keyed by jti; a second run is a no-op", arguments: ["aws", "dynamodb"])
    func setupCreatesTheTable(store: String) async throws {
        let server = try await MotoServer.shared()
        let table = "setup-events-\(UUID().uuidString.lowercased())"
        var environment = ReplayBackend.baseEnvironment()
        environment["AWS_REGION"] = AWSTestClients.region
        environment["AWS_ACCESS_KEY_ID"] = AWSTestClients.motoCredentials.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = AWSTestClients.motoCredentials.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = server.endpoint
        environment["SECURITY_EVENTS_TABLE"] = table
        // The shared moto outlives this test: every table it makes is its own.
        environment["USERS_TABLE"] = table + "-users"
        environment["TOKENS_TABLE"] = table + "-tokens"
        if store == "dynamodb" {
            environment["PAYPULSE_KMS_KEY_ID"] = try await KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: server.endpoint)).createKey()
        }

        let client = try AWSTestClients.dynamoDB(endpoint: server.endpoint)
        let ledger = DynamoDBSecurityEventLedger(client: client, table: table)
        for run in 0..<2 {
            let setup = try await FunctionProcess.cli(["setup", "--store", store], environment: environment)
            #expect(setup.status == 0, "\(setup.stderr)")
            #expect(setup.stdout.contains("security events table \(table) (time to live on expires_at)"), "\(setup.stdout)")
            if run == 0 { try await ledger.record("evt-1", until: Date().addingTimeInterval(3_600)) }
        }
        #expect(try await client.describeTable(table) == DynamoDBSecurityEventLedger.table(named: table))
        #expect(try await ledger.contains("evt-1"), "the second run left the table and its items alone")
    }

    @Test("--store embedded creates no table")
    func embeddedHasNothingToCreate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("setup-embedded-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ReplayBackend.baseEnvironment()
        environment["PAYPULSE_STATE_DIR"] = directory
        let setup = try await FunctionProcess.cli(["setup", "--store", "embedded"], environment: environment)
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(setup.stdout.contains("nothing to create"), "\(setup.stdout)")
    }
}
