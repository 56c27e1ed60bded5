import Foundation

/// A token checked by an independent library: `Tests/Fixtures/pyjwt_verify.py` (PyJWT with
/// `cryptography`, from PyPI) verifies it as RS256 under a public key, with its audience and
/// expiry, and hands back what it read.
public struct PyJWTVerifier {
    /// The token's header, as PyJWT read it.
    public let header: [String: Any]
    /// The token's claims, as PyJWT verified them.
    public let claims: [String: Any]

    static let script = BuiltExecutables.repositoryRoot.appendingPathComponent("Tests/Fixtures/pyjwt_verify.py")

    /// Runs the script once.
    /// - Parameters:
    ///   - token: The compact JWT.
    ///   - publicKeyPEM: The RSA public key it must verify under.
    ///   - audience: The `aud` it must carry.
    /// - Throws: ``PyJWTIssuerError`` with PyJWT's reason when it refuses the token or
    ///   cannot run (PyJWT is installed by scripts/ensure-deps.sh --with-pyjwt).
    public static func verify(_ token: String, publicKeyPEM: String, audience: String) throws -> PyJWTVerifier {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        // The script reads all of its input before it writes, so this order cannot block.
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: ["token": token, "public_key_pem": publicKeyPEM, "audience": audience]))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile(), complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any],
              let header = object["header"] as? [String: Any], let claims = object["claims"] as? [String: Any]
        else {
            throw PyJWTIssuerError("pyjwt_verify.py: \(String(decoding: complaint, as: UTF8.self))")
        }
        return PyJWTVerifier(header: header, claims: claims)
    }
}
