import Foundation
import Logging
import PayPulseEmbedded
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// The iOS developer's `jwks` loop through the built CLI: `paypulse serve --issuer` is its
/// own identity provider, `paypulse jwt --alg` (another process, the same state directory)
/// signs as it, and the API accepts those tokens and nothing else.
@Suite("paypulse serve --issuer and paypulse jwt --alg")
struct LocalIssuerServeTests {
    private let client = CurlHTTPClient()

    @Test("ES256 and RS256 tokens from paypulse jwt get the profile; an HS256 token is 401; the console disconnects with the issuer's key")
    func localLoop() async throws {
        let server = try await LocalServerProcess(arguments: ["--issuer", "--fake-google"])
        defer { #expect((try? server.stop().status) == 0, "a clean stop on SIGTERM") }
        let database = try EmbeddedDatabase(stateDirectory: server.stateDirectory, logger: Logger(label: "seed"))
        try await EmbeddedUserDirectory(database: database, logger: Logger(label: "seed"))
            .putUser(UserRecord(userID: "ios-dev", name: "Ios Dev", email: "dev@example.com", createdOn: "2026-11-26T00:00:00Z"))

        let discovery = try await get(server.baseURL + "/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(discovery.body)) as? [String: Any])
        #expect(document["issuer"] as? String == server.baseURL, "the issuer is the server's own URL")
        #expect(document["jwks_uri"] as? String == server.baseURL + "/.well-known/jwks.json")
        let keyFile = server.stateDirectory + "/local-issuer.json"
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the key file is the owner's alone: \(String(mode ?? 0, radix: 8))")

        let environment = ["PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": server.stateDirectory, "HOME": NSTemporaryDirectory()]
        var tokens: [String] = []
        for alg in ["ES256", "RS256"] {
            let minted = try await FunctionProcess.cli(["jwt", "--alg", alg, "--sub", "ios-dev"], environment: environment)
            #expect(minted.status == 0, "\(alg): \(minted.stderr)")
            let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            tokens.append(token)
            let header = try #require(Data(base64URL: String(token.prefix { $0 != "." })).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
            #expect(header["alg"] as? String == alg)
            #expect((header["kid"] as? String)?.isEmpty == false, "the header names the key")
            let profile = try await get(server.baseURL + "/v1/user/me", bearer: token)
            #expect(profile.status == 200, "\(alg): \(profile.status) \(profile.bodyText)")
            #expect(profile.bodyText.contains("Ios Dev"))
        }

        let shared = try await FunctionProcess.cli(["jwt", "--sub", "ios-dev"], environment: environment)
        #expect(shared.status == 0, "\(shared.stderr)")
        let refused = try await get(server.baseURL + "/v1/user/me", bearer: shared.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(refused.status == 401, "an HS256 token is not the issuer's: \(refused.status)")

        // The console's disconnect goes through the function with a token it mints: the
        // issuer's, or the function would answer 401.
        let notice = try await ServeRequests.consoleDisconnect("ios-dev", on: server)
        #expect(notice.contains("ios-dev") && !notice.contains("HTTP 401") && !notice.contains("failed"), "\(notice)")
        // The server logs at trace level: still no token and no private key.
        let log = server.log
        #expect(!log.isEmpty && !log.contains("PRIVATE KEY") && tokens.allSatisfy { !log.contains($0.split(separator: ".")[2]) })
        withExtendedLifetime(database) {}
    }

    @Test("paypulse jwt --alg RS256 on a state directory no serve --issuer has used fails and says what to start")
    func noIssuerYet() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("paypulse-no-issuer-\(UUID().uuidString)").path
        let minted = try await FunctionProcess.cli(
            ["jwt", "--alg", "RS256", "--sub", "ios-dev"], environment: ["PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": empty, "HOME": NSTemporaryDirectory()]
        )
        #expect(minted.status != 0)
        #expect(minted.stdout.isEmpty, "no token printed: \(minted.stdout)")
        #expect(minted.stderr.contains("no local issuer key") && minted.stderr.contains("paypulse serve --issuer"), "\(minted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: empty + "/local-issuer.json"), "no key is made outside serve")
    }

    private func get(_ url: String, bearer: String? = nil) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await client.execute(HTTPRequest(method: "GET", url: url, headers: headers, timeout: .seconds(30)))
    }
}

extension Data {
    /// Decodes unpadded base64url.
    fileprivate init?(base64URL text: String) {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        self.init(base64Encoded: standard)
    }
}
