import Foundation
import PayPulseCoding
import PayPulseDomain

/// `paypulse serve --issuer`: a development identity provider on the server itself, so the
/// app's `jwks` loop runs without a real one. It holds an RS256 and an ES256 key and
/// publishes them as an OpenID Connect issuer does; the server's own functions verify
/// under them (`PAYPULSE_AUTH_MODE=jwks`), the console and `paypulse jwt --alg` sign with them.
///
/// The keys live in the state directory (``prepare(url:stateDirectory:insideLambda:logger:)``),
/// so a token minted by another process verifies here.
public struct LocalIssuer: Sendable {
    /// Where the discovery document is served.
    public static let discoveryPath = "/.well-known/openid-configuration"
    /// Where the key set is served.
    public static let keySetPath = "/.well-known/jwks.json"

    /// The issuer (`iss`): the server's own base URL, e.g. `http://127.0.0.1:8080`.
    public let url: String
    /// The RS256 key.
    public let rs256: IssuerSigningKey
    /// The ES256 key.
    public let es256: IssuerSigningKey

    /// Creates an issuer from its keys.
    init(url: String, rs256: IssuerSigningKey, es256: IssuerSigningKey) {
        self.url = url
        self.rs256 = rs256
        self.es256 = es256
    }

    /// The key set's URL (`jwks_uri`, `PAYPULSE_JWT_JWKS_URL`).
    public var keySetURL: String { url + Self.keySetPath }

    /// A minter of this issuer's tokens for `audience`, signing with `algorithm`'s key.
    public func minter(_ algorithm: AsymmetricAlgorithm, audience: String) -> IssuerTokenMinter {
        IssuerTokenMinter(key: algorithm == .rs256 ? rs256 : es256, issuer: url, audience: audience)
    }

    /// `GET /.well-known/openid-configuration`: the issuer, its key set and its algorithms
    /// (OpenID Connect Discovery 1.0 §3; no authorization endpoint: tokens come from
    /// `paypulse jwt` and the console, not from a sign-in).
    func discoveryDocument() throws -> [UInt8] {
        struct Discovery: Encodable {
            let issuer: String
            let jwks_uri: String
            let id_token_signing_alg_values_supported: [String]
        }
        return try JSONCoding.encode(Discovery(
            issuer: url, jwks_uri: keySetURL, id_token_signing_alg_values_supported: [rs256, es256].map(\.algorithm.rawValue)
        ))
    }

    /// `GET /.well-known/jwks.json`: both public keys.
    func keySetDocument() throws -> [UInt8] {
        try IssuerSigningKey.keySetDocument([rs256, es256])
    }
}
