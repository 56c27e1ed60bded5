import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// No credential, secret value, signature or Authorization header in any log line.
@Suite("AWS adapter log hygiene")
struct LogHygieneTests {
    @Test("successful and failing calls at trace level log no secrets")
    func noSecretsLogged() async throws {
        let capture = LogCapture()
        let credentials = AWSCredentials(accessKeyID: "AKIDHYGIENE", secretAccessKey: "hygiene-secret-key-do-not-log", sessionToken: "hygiene-session-token")
        let endpoint = try await MotoServer.shared().endpoint
        let client = try AWSTestClients.jsonClient(.secretsManager, endpoint: endpoint, credentials: credentials, logger: capture.logger)
        let store = AWSSecretStore(client: SecretsManagerClient(client: client))
        let name = "test/hygiene/\(UUID().uuidString)"
        let value = "{\"access_token\":\"ya29.hygiene-access-token\",\"refresh_token\":\"1//hygiene-refresh-token\"}"

        let version = try await store.createSecret(name: name, value: value, tags: [:], clientRequestToken: UUID().uuidString)
        _ = try await store.getSecretValue(name: name, stage: .current)
        _ = try? await store.replaceCurrent(name: name, expected: SecretVersionID("stale"), value: value + " ")
        _ = try await store.replaceCurrent(name: name, expected: version, value: value + "  ")
        _ = try? await store.getSecretValue(name: name + "-absent", stage: .current)

        // A throttled server makes the client log its retries too.
        let throttling = try ScriptedHTTPServer { _, _ in .respond(status: 400, body: "{\"__type\":\"ThrottlingException\",\"message\":\"Rate exceeded\"}") }
        defer { throttling.stop() }
        let throttledClient = try AWSTestClients.jsonClient(.secretsManager, endpoint: throttling.url, credentials: credentials, logger: capture.logger)
        _ = try? await AWSSecretStore(client: SecretsManagerClient(client: throttledClient)).putSecretValue(name: name, value: value, clientRequestToken: UUID().uuidString)

        #expect(!capture.lines.isEmpty)
        #expect(capture.lines.contains { $0.contains("retrying") })
        let leaks = capture.lines(containingAnyOf: [
            credentials.secretAccessKey, "hygiene-session-token", "ya29.hygiene-access-token", "1//hygiene-refresh-token",
            "Signature=", "AWS4-HMAC-SHA256", "Authorization", "authorization",
        ])
        #expect(leaks.isEmpty, "log lines leak secrets: \(leaks)")
    }

    @Test("credentials do not print their secret parts")
    func credentialsRedacted() {
        let credentials = AWSCredentials(accessKeyID: "AKIDPRINT", secretAccessKey: "print-secret", sessionToken: "print-token")
        for text in [String(describing: credentials), String(reflecting: credentials), "\(credentials)"] {
            #expect(!text.contains("print-secret") && !text.contains("print-token"))
        }
    }
}
