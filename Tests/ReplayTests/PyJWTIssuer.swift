import Foundation
import PayPulseTestSupport

/// An identity provider played by an independent library: `Tests/Fixtures/pyjwt_issuer.py`
/// (PyJWT with `cryptography`, from PyPI) makes fresh RS256 and ES256 keys and signs the
/// tokens; its JWKS is served from loopback, where the functions fetch it.
struct PyJWTIssuer: Sendable {
    /// One token to sign: its claims (any JSON object), algorithm, and optional header fields.
    struct Token: Sendable {
        var claims: [String: any Sendable]
        var alg: String
        var kid: String? = nil
        var typ: String? = nil
    }

    /// The published key set, as PyJWT exported it.
    let jwks: String
    /// The signed tokens, in the order asked.
    let tokens: [String]
    /// The `resign` answers, in the order asked.
    let resigned: [String]

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pyjwt_issuer.py")

    /// Runs the script once.
    /// - Parameters:
    ///   - tokens: Tokens to sign.
    ///   - resign: HS256 tokens to sign again (RS256 and ES256 in turn) when `key` verifies them.
    static func sign(_ tokens: [Token], resign: (key: String, tokens: [String]) = ("", [])) throws -> PyJWTIssuer {
        let request: [String: Any] = [
            "tokens": tokens.map { token -> [String: Any] in
                var entry: [String: Any] = ["claims": token.claims, "alg": token.alg]
                if let kid = token.kid { entry["kid"] = kid }
                if let typ = token.typ { entry["typ"] = typ }
                return entry
            },
            "resign": ["key": resign.key, "tokens": resign.tokens.enumerated().map { ["token": $1, "alg": $0 % 2 == 0 ? "RS256" : "ES256"] }],
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        // The script reads all of its input before it writes, so this order cannot block.
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile(), complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any],
            let jwks = object["jwks"], let signed = object["tokens"] as? [String], let resigned = object["resigned"] as? [String]
        else {
            throw ReplayError("pyjwt_issuer.py failed (PyJWT is installed by scripts/ensure-deps.sh --with-pyjwt): \(String(decoding: complaint, as: UTF8.self))")
        }
        return PyJWTIssuer(
            jwks: String(decoding: try JSONSerialization.data(withJSONObject: jwks), as: UTF8.self), tokens: signed, resigned: resigned
        )
    }

    /// A loopback server publishing this key set (see ``Server``).
    func serve() throws -> Server {
        let server = try Server()
        server.publish(jwks)
        return server
    }

    /// A loopback issuer: the JWKS at `/jwks.json` and, for discovery,
    /// `/.well-known/openid-configuration` naming the server itself as the issuer. It
    /// listens before anything is published, so tokens can carry its URL as `iss`.
    final class Server: @unchecked Sendable {
        private let lock = NSLock()
        private var published = #"{"keys":[]}"#
        private var http: ScriptedHTTPServer!

        init() throws {
            http = try ScriptedHTTPServer { [unowned self] _, request in
                let url = "http://" + (request.headers["host"] ?? "")
                return switch request.target {
                case "/jwks.json":
                    .respond(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "public, max-age=3600"], body: lock.withLock { published })
                case "/.well-known/openid-configuration":
                    .respond(status: 200, headers: ["Content-Type": "application/json"], body: #"{"issuer":"\#(url)","jwks_uri":"\#(url)/jwks.json"}"#)
                default:
                    .respond(status: 404)
                }
            }
        }

        /// `http://127.0.0.1:<port>`: the issuer's URL for discovery.
        var url: String { http.url }
        /// What was asked, in order.
        var requests: [ScriptedHTTPServer.Request] { http.requests }

        /// Serves `jwks` from now on.
        func publish(_ jwks: String) { lock.withLock { published = jwks } }

        func stop() { http.stop() }
    }
}

/// The replay of `events/` in `jwks` mode: every development token of the API events
/// (store-tokens, user-profile, disconnect, and the cases they run first) signed again by
/// PyJWT, RS256 and ES256 in turn, with the same claims, so each case must answer exactly
/// as it does under `hs256`. Forged tokens stay as they are (PyJWT signs again only what the
/// development key verifies), and are refused as before.
struct JWKSReplay: Sendable {
    /// The API cases run without a special environment.
    static let cases = ReplayManifest.allCases.filter { ["store-tokens", "user-profile", "disconnect"].contains($0.function) && $0.environment == nil }

    /// PyJWT's token for each development token.
    let replacements: [String: String]
    /// What the functions run with on top of the backend's environment.
    let environment: [String: String]
    private let server: PyJWTIssuer.Server

    private static let made: Result<JWKSReplay, any Error> = Result { try JWKSReplay() }

    /// One signing and one key server for the whole run.
    static func shared() throws -> JWKSReplay { try made.get() }

    private init() throws {
        let events = Set(Self.cases.flatMap { [$0.event] + $0.before.compactMap { ReplayManifest.named($0)?.event } })
        let tokens = Array(Set(events.flatMap { Self.bearerTokens(in: ReplayManifest.bytes($0)) })).sorted()
        let signed = try PyJWTIssuer.sign([], resign: (key: "paypulse-local-development-jwt-key-do-not-deploy", tokens: tokens))
        replacements = Dictionary(uniqueKeysWithValues: zip(tokens, signed.resigned).filter { $0 != $1 })
        // A case whose token was not replaced answers 401 where it expects more, so the
        // replay itself shows every accepted token was PyJWT's; this only names the cause.
        guard !replacements.isEmpty else { throw ReplayError("PyJWT signed none of the \(tokens.count) tokens again") }
        server = try signed.serve()
        environment = [
            "PAYPULSE_AUTH_MODE": "jwks", "PAYPULSE_JWT_ISSUER": "paypulse", "PAYPULSE_JWT_AUDIENCE": "paypulse-api",
            "PAYPULSE_JWT_JWKS_URL": server.url + "/jwks.json",
        ]
    }

    /// The event with each development token replaced.
    func rewrite(_ event: Data) -> Data {
        var text = String(decoding: event, as: UTF8.self)
        for token in Self.bearerTokens(in: event) {
            if let replacement = replacements[token] { text = text.replacing(token, with: replacement) }
        }
        return Data(text.utf8)
    }

    private static func bearerTokens(in event: Data) -> [String] {
        String(decoding: event, as: UTF8.self).matches(of: /Bearer ([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*)/).map { String($0.1) }
    }
}
