import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// moto_server with signature checking on (a private server: the switch is server-wide).
@Suite("SigV4 signatures checked by moto_server")
struct SignatureCheckTests {
    @Test("a correct signature passes; a wrong secret key or an unknown key is refused, not retried")
    func signatureChecks() async throws {
        let moto = try await MotoServer.launchPrivate()
        let credentials = try await MotoIAM.enableSignatureChecks(endpoint: moto.endpoint)

        let good = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint, credentials: credentials))
        let name = "test/signed/\(UUID().uuidString)"
        _ = try await good.createSecret(name: name, value: "signed value", tags: ["k": "v"], clientRequestToken: UUID().uuidString)
        #expect(try await good.getSecretValue(name: name, stage: .current).string == "signed value")

        let wrongSecret = AWSCredentials(accessKeyID: credentials.accessKeyID, secretAccessKey: credentials.secretAccessKey + "x")
        let forged = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint, credentials: wrongSecret))
        do {
            _ = try await forged.getSecretValue(name: name, stage: .current)
            Issue.record("a wrong secret key was accepted")
        } catch let error as StoreError {
            #expect(error == .accessDenied)
            #expect(error.message.contains("SignatureDoesNotMatch"))
        }

        let unknown = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint, credentials: AWSCredentials(accessKeyID: "AKIDUNKNOWN", secretAccessKey: "x")))
        do {
            _ = try await unknown.describeSecret(name: name)
            Issue.record("an unknown key was accepted")
        } catch let error as StoreError {
            #expect(error == .accessDenied)
            #expect(error.message.contains("InvalidClientTokenId"))
        }
    }

    @Test("session tokens are signed and sent")
    func sessionToken() async throws {
        // moto does not validate session tokens; this checks the request carries a signed one.
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 200, body: "{\"Name\":\"n\"}") }
        defer { server.stop() }
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "session-token-value")
        let client = try AWSTestClients.secretsManager(endpoint: server.url, credentials: credentials)
        _ = try await client.describeSecret(name: "n")
        let request = try #require(server.requests.first)
        #expect(request.headers["x-amz-security-token"] == "session-token-value")
        #expect(request.headers["authorization"]?.contains("x-amz-security-token") == true)
        #expect(request.headers["content-type"] == "application/x-amz-json-1.1")
    }
}
