import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("no token reaches a log line or an error")
struct SecrecyTests {
    @Test("every path logs endpoint, status and attempt, and never a token")
    func logsCarryNoTokens() async throws {
        let fake = try GoogleFixture.fakeWithGrant(rotateTo: "1//0gRotatedSecret")
        defer { fake.stop() }
        let logs = LogCapture()
        let client = GoogleFixture.client(fake, retry: GoogleFixture.quickRetry, logs: logs)
        fake.script([.status(503), .pass, .status(400)])
        let grant = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID)
        var errors: [GoogleOAuthError] = []
        do { _ = try await client.refresh(refreshToken: GoogleFixture.refreshToken, clientID: fake.clientID) } catch let error as GoogleOAuthError { errors.append(error) }
        do { _ = try await client.refresh(refreshToken: "1//0gUnknownSecret", clientID: fake.clientID) } catch let error as GoogleOAuthError { errors.append(error) }
        try await client.revoke(token: grant.accessToken)
        do { try await client.revoke(token: "1//0gUnknownSecret") } catch let error as GoogleOAuthError { errors.append(error) }

        #expect(errors.map(\.kind) == [.rejected, .invalidGrant, .invalidToken])
        let secrets = [GoogleFixture.refreshToken, "1//0gRotatedSecret", grant.accessToken, "1//0gUnknownSecret", "1//0g", "ya29."]
        #expect(logs.lines(containingAnyOf: secrets).isEmpty)
        #expect(errors.allSatisfy { error in !secrets.contains { "\(error)".contains($0) } })
        #expect(logs.lines.contains { $0.hasPrefix("debug google call ") && $0.contains("endpoint=token") && $0.contains("status=200") && $0.contains("attempt=2") })
        #expect(logs.lines.contains { $0.hasPrefix("debug google call ") && $0.contains("endpoint=revoke") && $0.contains("duration_ms=") })
    }

    @Test("a token echoed back in an error body is scrubbed from the error and the log")
    func echoedTokenRedacted() async throws {
        let fake = try GoogleFixture.fakeWithGrant()
        defer { fake.stop() }
        let logs = LogCapture()
        let echo = #"{"error":"invalid_grant","error_description":"Bad refresh token 1//0gEchoed"}"#
        fake.script([.response(status: 400, body: echo)])
        let error = await #expect(throws: GoogleOAuthError.self) {
            try await GoogleFixture.client(fake, logs: logs).refresh(refreshToken: "1//0gEchoed", clientID: fake.clientID)
        }
        #expect(error?.detail == "Bad refresh token [redacted]")
        #expect(logs.lines(containingAnyOf: ["1//0gEchoed"]).isEmpty)
        #expect(logs.lines.contains { $0.contains("google call failed") && $0.contains("[redacted]") })
    }
}
