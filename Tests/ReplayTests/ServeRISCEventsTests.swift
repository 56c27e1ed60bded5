import Foundation
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// `paypulse serve --fake-google`'s RISC side, through the built binary: `POST
/// /fake-google/risc/events` makes the stand-in Google sign and push one event to serve's
/// own receiver, which verifies it against the stand-in's RISC discovery document and acts.
@Suite("serve --fake-google: POST /fake-google/risc/events", .serialized)
struct ServeRISCEventsTests {
    static func fields(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    /// Whether serve's user-profile says `user-1`'s Gmail is connected.
    static func connected(_ server: LocalServerProcess) async throws -> Bool? {
        let profile = try await ServeRequests.send("user-profile/v2-connected.json", to: server)
        return (fields(profile)["data"] as? [String: Any])?["gmail_account_connected"] as? Bool
    }

    @Test("an event pushed to serve's receiver is accepted (202) and acts: account-disabled leaves user-profile not connected")
    func pushedAndActed() async throws {
        let server = try await LocalServerProcess(binaryDirectory: FunctionProcess.binaryDirectory, arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        try await ServeRequests.seedUser(of: server)
        let stored = try await ServeRequests.connectLocalGrant(to: server)
        #expect(stored.status == 201, "\(stored.bodyText)")
        #expect(try await Self.connected(server) == true)

        let verification = try await ServeRequests.securityEvent(#"{"type": "verification", "state": "hello"}"#, to: server)
        #expect(verification.status == 200 && Self.fields(verification)["outcome"] as? String == "delivered", "\(verification.bodyText)")

        // token-revoked names the user's refresh token: not connected at once (serve's client
        // secret carries a token_digest_key); a reconnect connects again.
        let tokenRevoked = try await ServeRequests.securityEvent(
            #"{"type": "token-revoked", "user": "user-1", "token_identifier_alg": "hash_base64_sha512_sha512"}"#, to: server
        )
        #expect(Self.fields(tokenRevoked)["receiver_status"] as? Int == 202, "\(tokenRevoked.bodyText)")
        #expect(try await Self.connected(server) == false)
        // The stand-in follows its own event, as Google does: the revoked token is refused,
        // until the user signs in again (a new consent for the stand-in's grant).
        let refused = try await ServeRequests.connectLocalGrant(to: server)
        #expect(refused.status == 400 && refused.bodyText.contains("invalid_grant"), "\(refused.bodyText)")
        let consent = try await CurlHTTPClient().execute(HTTPRequest(
            method: "POST", url: server.baseURL + "/fake-google/grants", headers: ["Content-Type": "application/json"],
            body: Array(#"{"refresh_token": "1//local-dev-refresh", "sub": "108234567890123456789", "email": "jane.smith@gmail.com"}"#.utf8)
        ))
        #expect(consent.status == 201, "\(consent.bodyText)")
        #expect(try await ServeRequests.connectLocalGrant(to: server).status == 201)
        #expect(try await Self.connected(server) == true)

        let pushed = try await ServeRequests.securityEvent(#"{"type": "account-disabled", "user": "user-1", "reason": "hijacking"}"#, to: server)
        let answer = Self.fields(pushed)
        #expect(pushed.status == 200, "\(pushed.bodyText)")
        #expect(answer["type"] as? String == "account-disabled" && answer["outcome"] as? String == "delivered")
        #expect(answer["receiver_status"] as? Int == 202 && (answer["attempts"] as? [[String: Int]]) == [["status": 202]])
        #expect((answer["jti"] as? String)?.isEmpty == false)
        #expect(answer["receiver"] as? String == server.baseURL + "/v1/google/security-events")

        #expect(try await Self.connected(server) == false)

        // By the Google account instead of the user; token-revoked names the token the stand-in issued.
        let bySubject = try await ServeRequests.securityEvent(#"{"type": "account-enabled", "sub": "108234567890123456789"}"#, to: server)
        #expect(Self.fields(bySubject)["outcome"] as? String == "delivered", "\(bySubject.bodyText)")
        for alg in ["prefix", "hash_base64_sha512_sha512"] {
            let revoked = try await ServeRequests.securityEvent(
                #"{"type": "token-revoked", "sub": "108234567890123456789", "token_identifier_alg": "\#(alg)"}"#, to: server
            )
            #expect(Self.fields(revoked)["receiver_status"] as? Int == 202, "\(revoked.bodyText)")
            #expect(!revoked.bodyText.contains("1//"), "the answer carries no token")
        }
        #expect(server.log.contains("POST /v1/google/security-events 202 "))
        #expect(!server.log.contains("local-dev-refresh"))
    }

    @Test("bad input is a 4xx with a stable code and a readable message; nothing is pushed")
    func badInput() async throws {
        let server = try await LocalServerProcess(binaryDirectory: FunctionProcess.binaryDirectory, arguments: ["--fake-google"])
        defer { _ = try? server.stop() }
        let cases: [(body: String, status: Int, code: String, message: String)] = [
            ("not json", 400, "invalid_request", "Send a JSON object"),
            (#"["account-disabled"]"#, 400, "invalid_request", "Send a JSON object"),
            (#"{"type": "account-exploded", "user": "user-1"}"#, 400, "invalid_request", "Send type, one of: sessions-revoked, account-disabled"),
            (#"{"user": "user-1"}"#, 400, "invalid_request", "Send type"),
            (#"{"type": "account-disabled"}"#, 400, "invalid_request", "Send either user"),
            (#"{"type": "account-disabled", "user": "user-1", "sub": "1"}"#, 400, "invalid_request", "Send either user"),
            (#"{"type": "account-disabled", "user": 7}"#, 400, "invalid_request", "Send either user"),
            (#"{"type": "account-disabled", "user": "../etc"}"#, 400, "invalid_request", "user is not a valid PayPulse user id."),
            (#"{"type": "account-disabled", "user": "nobody"}"#, 404, "not_found", "No grant is stored for that user."),
            (#"{"type": "token-revoked", "sub": "1", "token_identifier_alg": "md5"}"#, 400, "invalid_request", "token_identifier_alg is prefix or"),
            (#"{"type": "token-revoked", "sub": "999"}"#, 404, "not_found", "token-revoked names a refresh token"),
        ]
        for entry in cases {
            let response = try await ServeRequests.securityEvent(entry.body, to: server)
            let fields = Self.fields(response)
            #expect(response.status == entry.status, "\(entry.body): \(response.bodyText)")
            #expect(fields["error"] as? String == entry.code, "\(entry.body): \(response.bodyText)")
            #expect((fields["message"] as? String)?.hasPrefix(entry.message) == true, "\(entry.body): \(response.bodyText)")
        }
        #expect(try await ServeRequests.securityEvent("{}", to: server, method: "GET").status == 405)
        #expect(!server.log.contains("/v1/google/security-events"), "nothing was pushed")
    }
}
