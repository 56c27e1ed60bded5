import Foundation

/// A token checked by an independent library: `Tests/Fixtures/pyjwt_verify.py` (PyJWT with
/// `cryptography`, from PyPI) verifies it as RS256 under a public key, with its audience and
/// expiry, and hands back what it read.
package struct PyJWTVerifier {
    /// The token's header, as PyJWT read it.
    package let header: [String: Any]
    /// The token's claims, as PyJWT verified them.
    package let claims: [String: Any]

    static let script = BuiltExecutables.repositoryRoot.appendingPathComponent("Tests/Fixtures/pyjwt_verify.py")

    /// Runs the script once.
    /// - Parameters:
    ///   - token: The compact JWT.
    ///   - publicKeyPEM: The RSA public key it must verify under.
    ///   - audience: The `aud` it must carry.
    ///   - require: The claims it must carry (a Security Event Token has no `exp` nor `sub`).
    /// - Throws: ``PyJWTIssuerError`` with PyJWT's reason when it refuses the token or
    ///   cannot run (PyJWT is installed by scripts/ensure-deps.sh --with-pyjwt).
    package static func verify(
        _ token: String, publicKeyPEM: String, audience: String, require: [String] = ["exp", "iat", "iss", "sub"]
    ) throws -> PyJWTVerifier {
        let (object, complaint) = try PythonScript.run(
            script, request: ["token": token, "public_key_pem": publicKeyPEM, "audience": audience, "require": require]
        )
        guard let header = object?["header"] as? [String: Any], let claims = object?["claims"] as? [String: Any] else {
            throw PyJWTIssuerError("pyjwt_verify.py: \(complaint)")
        }
        return PyJWTVerifier(header: header, claims: claims)
    }
}
