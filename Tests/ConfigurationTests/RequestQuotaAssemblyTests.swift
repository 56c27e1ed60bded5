import Foundation
import Logging
import PayPulseApp
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `STORE_TOKENS_PER_MINUTE`, `REQUEST_QUOTAS_TABLE` and which quota ``Assembly/requestQuota()``
/// builds on each store.
@Suite("The request quota's settings and its adapter per store")
struct RequestQuotaAssemblyTests {
    private static let aws = ["AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]

    @Test("STORE_TOKENS_PER_MINUTE defaults to 10 within 1–1,000; REQUEST_QUOTAS_TABLE defaults to deploy/request-quotas-table.json's name")
    func settings() throws {
        #expect(try AppConfiguration.fromEnvironment([:]).storeTokensPerMinute == 10)
        #expect(try AppConfiguration.fromEnvironment(["STORE_TOKENS_PER_MINUTE": "3"]).storeTokensPerMinute == 3)
        for bad in ["0", "1001", "ten", "-1"] {
            #expect { try AppConfiguration.fromEnvironment(["STORE_TOKENS_PER_MINUTE": bad]) } throws: { error in
                (error as? ConfigurationError)?.variable == "STORE_TOKENS_PER_MINUTE"
            }
        }
        let definition = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.definitionFile)) as? [String: Any]
        let fileName = try #require((definition?["CreateTable"] as? [String: Any])?["TableName"] as? String)
        #expect(try AppConfiguration.fromEnvironment([:]).requestQuotasTable == fileName)
        #expect(try AppConfiguration.fromEnvironment(["REQUEST_QUOTAS_TABLE": "custom"]).requestQuotasTable == "custom")
        let lambda = Self.aws.merging(["AWS_LAMBDA_FUNCTION_NAME": "store-tokens", "PAYPULSE_STORE": "aws"]) { $1 }
        #expect(AppConfiguration.variablesRead(lambda).isSuperset(of: ["STORE_TOKENS_PER_MINUTE", "REQUEST_QUOTAS_TABLE"]))
    }

    @Test("embedded: the embedded quota; aws and dynamodb: the DynamoDB quota; each wrapped as the assembly wraps ports")
    func adapterPerStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quota-assembly-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logger = Logger(label: "quota-assembly") { _ in SwiftLogNoOpLogHandler() }
        let stores: [(String, [String: String], (any RequestQuota) -> Bool)] = [
            ("embedded", ["PAYPULSE_STATE_DIR": directory], { $0 is EmbeddedRequestQuota }),
            ("aws", Self.aws, { $0 is DynamoDBRequestQuota }),
            ("dynamodb", Self.aws.merging(["PAYPULSE_KMS_KEY_ID": "alias/tokens"]) { $1 }, { $0 is DynamoDBRequestQuota }),
        ]
        for (store, environment, isExpected) in stores {
            let configuration = try AppConfiguration.fromEnvironment(environment.merging(["PAYPULSE_STORE": store]) { $1 })
            let assembly = try Assembly.build(configuration: configuration, logger: logger)
            #expect(isExpected(try assembly.requestQuota()), "\(store)")
            var wrappers = PortWrappers()
            wrappers.quota = { _ in InMemoryRequestQuota() }
            #expect(try assembly.wrapping(wrappers).requestQuota() is InMemoryRequestQuota, "\(store)")
        }
    }

    /// deploy/request-quotas-table.json, from this file's place in the repository.
    private static let definitionFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy").appendingPathComponent("request-quotas-table.json")
}
