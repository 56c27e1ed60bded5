import Foundation
import PayPulseDomain
import PayPulseTestSupport
import Testing
import _CryptoExtras

/// Google's Cross-Account Protection played by PyJWT (`PyJWTIssuer`): Security Event Tokens
/// shaped as Google's guide and FIELD-NOTES show them, signed by an independent library,
/// and the verifier that receives them, its keys and issuer served as a RISC discovery
/// document would name them.
enum SecurityEventFixture {
    static let issuer = "https://accounts.google.com/"
    static let clientIDs = ["123456789-ios.apps.googleusercontent.com", "123456789-debug.apps.googleusercontent.com"]
    /// The Google account's `sub` in Google's examples.
    static let googleSubject = "7375626A656374"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let oauth = "https://schemas.openid.net/secevent/oauth/event-type/"
    /// PyJWT's RSA key id (`pyjwt_issuer.py`).
    static let kid = "pyjwt-rsa"

    /// Google's account as an `iss-sub` subject.
    static let accountSubject: [String: any Sendable] = ["subject_type": "iss-sub", "iss": issuer, "sub": googleSubject]

    /// Claims as Google sends them at ``AuthFixture/now``: one event of `type` (a URI) with
    /// `payload`, then `overrides` (a `nil` value removes the claim).
    static func claims(
        _ type: String, _ payload: [String: any Sendable] = ["subject": accountSubject], _ overrides: [String: (any Sendable)?] = [:]
    ) -> [String: any Sendable] {
        var claims: [String: any Sendable] = [
            "iss": issuer, "aud": clientIDs[0], "iat": AuthFixture.nowSeconds - 5, "jti": UUID().uuidString,
            "events": [type: payload] as [String: any Sendable],
        ]
        for (name, value) in overrides { claims[name] = value }
        return claims
    }

    /// An RS256 token of `claims`, for PyJWT to sign (its RSA key, `kid` unless given).
    static func token(_ claims: [String: any Sendable], kid: String? = nil) -> PyJWTIssuer.Token {
        PyJWTIssuer.Token(claims: claims, alg: "RS256", kid: kid)
    }

    /// A verifier under PyJWT's key set, named with `issuer` as a RISC document would.
    static func verifier(
        _ signed: PyJWTIssuer, issuer: String? = issuer, clientIDs: @escaping @Sendable () async throws -> [String] = { clientIDs }
    ) -> (SecurityEventVerifier, ScriptedKeySource) {
        let source = ScriptedKeySource(document: signed.jwks, maxAge: 3600, issuer: issuer)
        return (SecurityEventVerifier(keys: source, clientIDs: clientIDs), source)
    }

    /// PyJWT's RSA public key, read back from its JWKS (for the HS256-with-the-public-key forgery).
    static func publicKey(_ signed: PyJWTIssuer) throws -> _RSA.Signing.PublicKey {
        let set = try #require(try JSONSerialization.jsonObject(with: Data(signed.jwks.utf8)) as? [String: Any])
        let keys = try #require(set["keys"] as? [[String: Any]])
        let jwk = try #require(keys.first { $0["kid"] as? String == kid })
        let n = try #require(base64URLDecoded(jwk["n"] as? String)), e = try #require(base64URLDecoded(jwk["e"] as? String))
        return try _RSA.Signing.PublicKey(n: n, e: e)
    }

    /// Unpadded base64url decoded.
    static func base64URLDecoded(_ text: String?) -> Data? {
        guard var text = text?.replacing("-", with: "+").replacing("_", with: "/") else { return nil }
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}

/// Expects `verify` to reject `token` with the RFC 8935 `err` (and `expected`, when given),
/// and checks that no piece of the token reaches the error's text.
func expectRejected(
    _ verifier: SecurityEventVerifier, _ token: String, _ err: String, _ expected: SecurityEventRejection? = nil,
    at now: Date = AuthFixture.now, sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        let accepted = try await verifier.verify(token, now: now)
        Issue.record("accepted: \(accepted.events.map(\.type))", sourceLocation: sourceLocation)
    } catch {
        guard case .rejected(let rejection) = error else {
            Issue.record("not a rejection: \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(rejection.err == err, "\(rejection)", sourceLocation: sourceLocation)
        if let expected { #expect(rejection == expected, "\(rejection)", sourceLocation: sourceLocation) }
        let pieces = token.split(whereSeparator: { $0 == "." }).map(String.init).filter { $0.count >= 8 }
        for text in [rejection.err, rejection.description, String(describing: error), String(reflecting: error)] {
            for piece in pieces {
                #expect(!text.contains(piece), "the error text carries part of the token", sourceLocation: sourceLocation)
            }
        }
    }
}
