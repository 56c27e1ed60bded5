import Testing

@testable import PayPulseAWS

@Suite("AWS endpoints")
struct AWSEndpointTests {
    @Test("regional endpoints, including the China partition")
    func regional() {
        #expect(AWSService.secretsManager.regionalEndpoint(region: "eu-west-1") == "https://secretsmanager.eu-west-1.amazonaws.com")
        #expect(AWSService.dynamoDB.regionalEndpoint(region: "cn-north-1") == "https://dynamodb.cn-north-1.amazonaws.com.cn")
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
