import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Retries against a scripted server playing Secrets Manager: throttling and 5xx are
/// retried then surfaced, a 4xx is surfaced at once, a stalled server hits the timeout.
@Suite("AWS JSON client retries and failures")
struct AWSRetryTests {
    private let throttled = ScriptedHTTPServer.Action.respond(
        status: 400, headers: ["X-Amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/"],
        body: "{\"__type\":\"ThrottlingException\",\"message\":\"Rate exceeded\"}"
    )
    private let success = ScriptedHTTPServer.Action.respond(
        status: 200, headers: ["Content-Type": "application/x-amz-json-1.1"],
        body: "{\"Name\":\"n\",\"VersionIdsToStages\":{\"v1\":[\"AWSCURRENT\"]},\"Tags\":[]}"
    )

    private func store(_ server: ScriptedHTTPServer, timeout: Duration = TestTime.scaled(.seconds(5)), logger: LogCapture = LogCapture()) throws -> AWSSecretStore {
        let client = try AWSTestClients.jsonClient(.secretsManager, endpoint: server.url, timeout: timeout, logger: logger.logger)
        return AWSSecretStore(client: SecretsManagerClient(client: client))
    }

    @Test("throttling twice, then success: the call succeeds on the third attempt")
    func throttlingRetried() async throws {
        let throttled = throttled, success = success
        let server = try ScriptedHTTPServer { index, _ in index < 2 ? throttled : success }
        defer { server.stop() }
        let description = try await store(server).describeSecret(name: "n")
        #expect(description.currentVersion == SecretVersionID("v1"))
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.headers["x-amz-target"] == "secretsmanager.DescribeSecret" })
    }

    @Test("5xx every time: retried up to the attempt limit, then unavailable")
    func serverErrorsSurfaced() async throws {
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 503, body: "<html>Service Unavailable</html>") }
        defer { server.stop() }
        await #expect(throws: StoreError.unavailable) { try await store(server).describeSecret(name: "n") }
        #expect(server.requests.count == AWSTestClients.quickRetries.maxAttempts)
    }

    @Test("throttling every time: surfaced as unavailable after the attempt limit")
    func throttlingSurfaced() async throws {
        let throttled = throttled
        let server = try ScriptedHTTPServer { _, _ in throttled }
        defer { server.stop() }
        await #expect(throws: StoreError.unavailable) { try await store(server).describeSecret(name: "n") }
        #expect(server.requests.count == AWSTestClients.quickRetries.maxAttempts)
    }

    @Test("a 4xx caller error is surfaced at once with its code, never retried")
    func clientErrorNotRetried() async throws {
        let server = try ScriptedHTTPServer { _, _ in
            .respond(status: 400, body: "{\"__type\":\"com.amazonaws.secretsmanager#ResourceNotFoundException\",\"Message\":\"Secrets Manager can't find the specified secret.\"}")
        }
        defer { server.stop() }
        do {
            _ = try await store(server).describeSecret(name: "n")
            Issue.record("expected a failure")
        } catch let error as StoreError {
            #expect(error == .notFound)
            #expect(error.message.contains("ResourceNotFoundException"))
        }
        #expect(server.requests.count == 1)
    }

    @Test("an XML 403 from an emulator's IAM check decodes cleanly and is not retried")
    func xmlAccessDenied() async throws {
        let server = try ScriptedHTTPServer { _, _ in
            .respond(status: 403, body: "<?xml version=\"1.0\"?><ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match.</Message></Error></ErrorResponse>")
        }
        defer { server.stop() }
        await #expect(throws: StoreError.accessDenied) { try await store(server).describeSecret(name: "n") }
        #expect(server.requests.count == 1)
    }

    @Test("a server that accepts and never answers hits the timeout on every attempt")
    func stalledServer() async throws {
        let server = try ScriptedHTTPServer { _, _ in .stall }
        defer { server.stop() }
        do {
            _ = try await store(server, timeout: .milliseconds(200)).describeSecret(name: "n")
            Issue.record("expected a timeout")
        } catch let error as StoreError {
            #expect(error == .unavailable)
            #expect(error.message.contains("timeout"))
        }
        #expect(server.requests.count == AWSTestClients.quickRetries.maxAttempts)
    }

    @Test("a 2xx answer of the wrong shape is a clear error")
    func unreadableAnswer() async throws {
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 200, body: "<html>not json</html>") }
        defer { server.stop() }
        await #expect(throws: StoreError.corrupt) { try await store(server).describeSecret(name: "n") }
    }
}
