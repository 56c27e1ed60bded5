import Testing

@testable import PayPulseAWS

@Suite("AWS endpoints")
struct AWSEndpointTests {
    @Test("the service variable wins over AWS_ENDPOINT_URL, which wins over the regional endpoint")
    func precedence() {
        let service = AWSService.secretsManager
        #expect(service.endpoint(region: "eu-west-1", environment: [:]) == "https://secretsmanager.eu-west-1.amazonaws.com")
        #expect(service.endpoint(region: "eu-west-1", environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:5000"]) == "http://127.0.0.1:5000")
        #expect(
            service.endpoint(region: "eu-west-1", environment: ["AWS_ENDPOINT_URL": "http://a:1", "AWS_ENDPOINT_URL_SECRETS_MANAGER": "http://b:2"])
                == "http://b:2"
        )
        #expect(AWSService.dynamoDB.endpoint(region: "us-east-1", environment: ["AWS_ENDPOINT_URL_SECRETS_MANAGER": "http://b:2"]) == "https://dynamodb.us-east-1.amazonaws.com")
        #expect(AWSService.dynamoDB.endpoint(region: "us-east-1", environment: ["AWS_ENDPOINT_URL_DYNAMODB": "http://d:3"]) == "http://d:3")
    }

    @Test("endpoints parse into URL, Host header and path")
    func parsing() throws {
        let local = try #require(AWSEndpoint("http://127.0.0.1:5000"))
        #expect(local.host == "127.0.0.1:5000" && local.path == "/" && local.url == "http://127.0.0.1:5000/")
        let regional = try #require(AWSEndpoint("https://secretsmanager.us-east-1.amazonaws.com:443/"))
        #expect(regional.host == "secretsmanager.us-east-1.amazonaws.com")
        #expect(AWSEndpoint("ftp://x") == nil)
        #expect(AWSEndpoint("http://") == nil)
        #expect(AWSEndpoint("127.0.0.1:5000") == nil)
    }
}
