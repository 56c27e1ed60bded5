import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// `paypulse setup` and template.yaml must create the same request quotas table (key, billing,
/// TTL attribute): here the requests setup sends against deploy/request-quotas-table.json, in
/// scripts/check_template.py the template's `RequestQuotasTable`.
@Suite("The request quotas table setup creates is deploy/request-quotas-table.json")
struct RequestQuotasTableDefinitionTests {
    @Test("createTableIfNeeded sends exactly the file's CreateTable, then its UpdateTimeToLive")
    func requestsAreTheCommittedDefinition() async throws {
        try await SetupRequests.expectSent(definition: "request-quotas-table.json") { client, name in
            try await DynamoDBRequestQuota(client: client, table: name, rule: QuotaRule(limit: 10)).createTableIfNeeded()
        }
    }
}
