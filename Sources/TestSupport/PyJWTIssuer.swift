import Foundation
import PayPulseFakeGoogle

/// An identity provider played by an independent library: `Tests/Fixtures/pyjwt_issuer.py`
/// (PyJWT with `cryptography`, from PyPI) makes fresh RS256 and ES256 keys and signs the
/// tokens; its JWKS is served from loopback, where the functions fetch it.
package struct PyJWTIssuer: Sendable {
    /// One token to sign: its claims (any JSON object), algorithm, and optional header fields.
    package struct Token: Sendable {
        package var claims: [String: any Sendable]
        package var alg: String
        package var kid: String?
        package var typ: String?

        /// A token of `claims` signed with `alg` (`RS256` or `ES256`).
        package init(claims: [String: any Sendable], alg: String, kid: String? = nil, typ: String? = nil) {
            self.claims = claims
            self.alg = alg
            self.kid = kid
            self.typ = typ
        }
    }

    /// The published key set, as PyJWT exported it.
    package let jwks: String
    /// The signed tokens, in the order asked.
    package let tokens: [String]
    /// The `resign` answers, in the order asked.
    package let resigned: [String]

    static let script = BuiltExecutables.repositoryRoot.appendingPathComponent("Tests/Fixtures/pyjwt_issuer.py")

    /// Runs the script once.
    /// - Parameters:
    ///   - tokens: Tokens to sign.
    ///   - resign: HS256 tokens to sign again (RS256 and ES256 in turn) when `key` verifies them.
    package static func sign(_ tokens: [Token], resign: (key: String, tokens: [String]) = ("", [])) throws -> PyJWTIssuer {
        let request: [String: Any] = [
            "tokens": tokens.map { token -> [String: Any] in
                var entry: [String: Any] = ["claims": token.claims, "alg": token.alg]
                if let kid = token.kid { entry["kid"] = kid }
                if let typ = token.typ { entry["typ"] = typ }
                return entry
            },
            "resign": ["key": resign.key, "tokens": resign.tokens.enumerated().map { ["token": $1, "alg": $0 % 2 == 0 ? "RS256" : "ES256"] }],
        ]
        let (object, complaint) = try PythonScript.run(script, request: request)
        guard let jwks = object?["jwks"], let signed = object?["tokens"] as? [String], let resigned = object?["resigned"] as? [String] else {
            throw PyJWTIssuerError("pyjwt_issuer.py failed (PyJWT is installed by scripts/ensure-deps.sh --with-pyjwt): \(complaint)")
        }
        return PyJWTIssuer(
            jwks: String(decoding: try JSONSerialization.data(withJSONObject: jwks), as: UTF8.self), tokens: signed, resigned: resigned
        )
    }

    /// A loopback server publishing this key set (see ``Server``).
    package func serve() throws -> Server {
        let server = try Server()
        server.publish(jwks)
        return server
    }

    /// A loopback issuer: the JWKS at `/jwks.json` and, for discovery,
    /// `/.well-known/openid-configuration` naming the server itself as the issuer. It
    /// listens before anything is published, so tokens can carry its URL as `iss`.
    package final class Server: @unchecked Sendable {
        private let lock = NSLock()
        private var published = #"{"keys":[]}"#
        private var http: ScriptedHTTPServer!

        /// Starts listening on a free loopback port, publishing an empty set.
        package init() throws {
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
        package var url: String { http.url }
        /// What was asked, in order.
        package var requests: [ScriptedHTTPServer.Request] { http.requests }

        /// Serves `jwks` from now on.
        package func publish(_ jwks: String) { lock.withLock { published = jwks } }

        /// Stops listening.
        package func stop() { http.stop() }
    }
}

/// The signing script failed: its standard error.
package struct PyJWTIssuerError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
