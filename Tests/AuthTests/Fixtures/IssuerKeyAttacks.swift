import Crypto
import Foundation
import _CryptoExtras

/// Tokens an attacker would send to a `jwks` deployment (issue "Bring your own login",
/// point 6), each with the key set the issuer serves while it arrives.
enum IssuerKeyAttacks {
    struct Attack: Sendable {
        var name: String
        var token: String
        /// The set the issuer serves; `nil` for ``TestIssuer/standardKeySet()``.
        var keySet: String? = nil
        /// 401; 503 when the issuer gave no usable set at all: then no token can be checked
        /// and the caller's is not at fault (with a set already held the same answers
        /// change nothing: `IssuerKeyTests.unusableAnswers`).
        var status = 401
    }

    static let count = 16

    static func all() async throws -> [Attack] {
        let payload = TestIssuer.payload()
        let rsaPublic = TestIssuer.rsa.publicKey, ecPublic = TestIssuer.ec.publicKey
        // A 1024-bit RSA key the issuer (wrongly) publishes beside the good ones.
        let weak = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        let weakSet = TestIssuer.keySet([try TestIssuer.rsaJWK(), TestIssuer.ecJWK(), try TestIssuer.rsaJWK(weak.publicKey, kid: "weak")])
        let stranger = P256.Signing.PrivateKey()
        var attacks: [Attack] = [
            // Algorithm confusion: HS256 MACed with the public key's bytes, in every form a
            // verifier might hand to HMAC.
            Attack(name: "HS256 keyed with the RSA public key (PEM)", token: try await TokenForge.hmac(
                header: #"{"alg":"HS256","kid":"rsa-1"}"#, payload: payload, key: rsaPublic.pemRepresentation)),
            Attack(name: "HS256 keyed with the RSA public key (DER)", token: try await TokenForge.hmac(
                header: #"{"alg":"HS256","kid":"rsa-1"}"#, payload: payload, keyBytes: Array(rsaPublic.derRepresentation))),
            Attack(name: "HS256 keyed with the EC public key (raw x||y)", token: try await TokenForge.hmac(
                header: #"{"alg":"HS256","kid":"ec-1"}"#, payload: payload, keyBytes: Array(ecPublic.rawRepresentation))),
            Attack(name: "HS256 keyed with the EC public key (PEM)", token: try await TokenForge.hmac(
                header: #"{"alg":"HS256","kid":"ec-1"}"#, payload: payload, key: ecPublic.pemRepresentation)),
            Attack(name: "alg none", token: TokenForge.unsigned(header: #"{"alg":"none","kid":"rsa-1"}"#, payload: payload)),
            Attack(name: "a kid that names no key", token: try TestIssuer.rs256(kid: "no-such-key")),
            Attack(name: "a kid with path characters", token: try TestIssuer.rs256(kid: "../../../../etc/passwd")),
            Attack(name: "a kid with quotes", token: try TestIssuer.rs256(
                header: #"{"alg":"RS256","kid":"rsa-1\" OR \"1\"=\"1"}"#)),
            Attack(name: "signed by the 1024-bit key in the set", token: try TestIssuer.rs256(kid: "weak", key: weak), keySet: weakSet),
            Attack(name: "an ES256 signature in DER form", token: try TestIssuer.es256(der: true)),
            Attack(name: "signed by a key not in the set, naming a key that is", token: try TestIssuer.es256(key: stranger)),
            Attack(name: "a JWKS answer that is not JSON", token: try TestIssuer.rs256(), keySet: "<html>502 Bad Gateway</html>", status: 503),
            Attack(name: "a 1 MiB JWKS answer", token: try TestIssuer.rs256(),
                   keySet: try TestIssuer.standardKeySet() + String(repeating: " ", count: 1 << 20), status: 503),
        ]
        // Key-carrying and critical header parameters, each beside a valid signature.
        for (name, member) in [
            ("jku", #""jku":"https://attacker.example/jwks.json""#),
            ("jwk", #""jwk":\#(TestIssuer.ecJWK(stranger.publicKey))"#),
            ("crit", #""crit":["exp"]"#),
        ] {
            let header = #"{"alg":"ES256","kid":"ec-1",\#(member)}"#
            attacks.append(Attack(name: "header \(name)", token: try TestIssuer.es256(header: header)))
        }
        return attacks
    }
}
