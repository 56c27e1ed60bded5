#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif
import JWTKit

/// The JOSE header rules, checked on the raw header before jwt-kit sees the token.
///
/// jwt-kit picks a key by `kid` and, for a plain key, does not compare the header's `alg`
/// with the key's algorithm; so the pinning is done here: `alg` must be exactly `HS256`,
/// and only `alg` and `typ` may appear. That refuses `none`, every other algorithm
/// (HS/RS confusion), and key-selection parameters (`kid`, `jku`, `jwk`, `x5u`, `x5c`) and
/// `crit`, which a verifier must otherwise understand.
enum TokenHeaderPolicy {
    /// The only algorithm accepted.
    static let algorithm = "HS256"
    private static let allowedParameters: Set<String> = ["alg", "typ"]

    /// Checks the base64url header segment.
    /// - Throws: ``AuthenticationError`` when the header is not JSON, pins another algorithm,
    ///   or carries a parameter other than `alg` and `typ` (`typ`, when present, must be `JWT`).
    static func check(encodedHeader: Substring) throws(AuthenticationError) {
        guard let json = Base64URL.decode(encodedHeader),
              let fields = try? JSONDecoder().decode([String: JWTHeaderField].self, from: json) else {
            throw .malformedHeader
        }
        guard fields["alg"] == .string(algorithm) else { throw .algorithmNotAllowed }
        guard fields.keys.allSatisfy(allowedParameters.contains) else { throw .unexpectedHeaderParameter }
        if let typ = fields["typ"] {
            guard case .string(let value) = typ, value.uppercased() == "JWT" else { throw .unexpectedHeaderParameter }
        }
    }
}
