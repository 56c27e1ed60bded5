import Foundation
import Logging
import PayPulseApp
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `SECURITY_EVENTS_TABLE` and which ledger ``Assembly/securityEventLedger()`` builds on each
/// store: the embedded file's table, or the DynamoDB table on both AWS stores.
@Suite("The security event ledger's setting and its adapter per store")
struct SecurityEventLedgerAssemblyTests {
    private static let aws = ["AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]

    @Test("SECURITY_EVENTS_TABLE defaults to deploy/security-events-table.json's name, is read, and a bad name names the variable")
    func setting() throws {
        let definition = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.definitionFile)) as? [String: Any]
        let fileName = (definition?["CreateTable"] as? [String: Any])?["TableName"] as? String
        #expect(try AppConfiguration.fromEnvironment([:]).securityEventsTable == fileName)
        #expect(AppConfiguration.defaultSecurityEventsTable == fileName)
        #expect(try AppConfiguration.fromEnvironment(["SECURITY_EVENTS_TABLE": "custom-events"]).securityEventsTable == "custom-events")
        #expect {
            try AppConfiguration.fromEnvironment(["SECURITY_EVENTS_TABLE": "a b"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "SECURITY_EVENTS_TABLE"
        }
        let lambda = Self.aws.merging(["AWS_LAMBDA_FUNCTION_NAME": "security-events", "PAYPULSE_STORE": "aws"]) { $1 }
        #expect(AppConfiguration.variablesRead(lambda).contains("SECURITY_EVENTS_TABLE"))
    }

    @Test("embedded: the embedded ledger; aws and dynamodb: the DynamoDB ledger; each wrapped as the assembly wraps ports")
    func adapterPerStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-assembly-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logger = Logger(label: "ledger-assembly") { _ in SwiftLogNoOpLogHandler() }
        let embedded = { (ledger: any SecurityEventLedger) in ledger is EmbeddedSecurityEventLedger }
        let dynamoDB = { (ledger: any SecurityEventLedger) in ledger is DynamoDBSecurityEventLedger }
        let stores: [(String, [String: String], (any SecurityEventLedger) -> Bool)] = [
            ("embedded", ["PAYPULSE_STATE_DIR": directory], embedded),
            ("aws", Self.aws, dynamoDB),
            ("dynamodb", Self.aws.merging(["PAYPULSE_KMS_KEY_ID": "alias/tokens"]) { $1 }, dynamoDB),
        ]
        for (store, environment, isExpected) in stores {
            let configuration = try AppConfiguration.fromEnvironment(environment.merging(["PAYPULSE_STORE": store]) { $1 })
            let assembly = try Assembly.build(configuration: configuration, logger: logger)
            #expect(isExpected(try assembly.securityEventLedger()), "\(store)")
            var wrappers = PortWrappers()
            wrappers.ledger = { _ in InMemorySecurityEventLedger() }
            #expect(try assembly.wrapping(wrappers).securityEventLedger() is InMemorySecurityEventLedger, "\(store)")
        }
    }

    /// deploy/security-events-table.json, from this file's place in the repository.
    private static let definitionFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy").appendingPathComponent("security-events-table.json")
}
