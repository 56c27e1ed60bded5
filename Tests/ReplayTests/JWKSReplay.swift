import Foundation
import PayPulseTestSupport

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

    /// The bearer tokens an event's headers carry, in order.
    static func bearerTokens(in event: Data) -> [String] {
        String(decoding: event, as: UTF8.self).matches(of: /Bearer ([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*)/).map { String($0.1) }
    }
}
