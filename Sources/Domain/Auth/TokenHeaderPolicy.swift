#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// The JOSE header rules, checked on the raw header before the signature.
///
/// The algorithm is pinned, never taken from the token: `alg` must be exactly `HS256`,
/// and only `alg` and `typ` may appear. That refuses `none`, every other algorithm
/// (HS/RS confusion), and key-selection parameters (`kid`, `jku`, `jwk`, `x5u`, `x5c`) and
/// `crit`, which a verifier must otherwise understand.
enum TokenHeaderPolicy {
    /// The only algorithm accepted.
    static let algorithm = "HS256"
    private static let allowedParameters: Set<String> = ["alg", "typ"]

    /// A header parameter's value: a string, or anything else JSON allows.
    enum HeaderValue: Decodable, Equatable {
        case string(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self = (try? container.decode(String.self)).map(Self.string) ?? .other
        }
    }

    /// Checks the base64url header segment.
    /// - Throws: ``AuthenticationError`` when the header is not JSON, pins another algorithm,
    ///   or carries a parameter other than `alg` and `typ` (`typ`, when present, must be `JWT`).
    static func check(encodedHeader: Substring) throws(AuthenticationError) {
        guard let json = Base64URL.decode(encodedHeader), let fields = headerFields(Array(json)) else { throw .malformedHeader }
        guard fields["alg"] == .string(algorithm) else { throw .algorithmNotAllowed }
        guard fields.keys.allSatisfy(allowedParameters.contains) else { throw .unexpectedHeaderParameter }
        if let typ = fields["typ"] {
            guard case .string(let value) = typ, value.uppercased() == "JWT" else { throw .unexpectedHeaderParameter }
        }
    }

    /// The header's members as `JSONDecoder` reads `[String: HeaderValue]`, through
    /// ``JSONValue/fastParse(_:)`` where it answers (JSONDecoder was most of a check).
    private static func headerFields(_ json: [UInt8]) -> [String: HeaderValue]? {
        guard let value = JSONValue.fastParse(json) else { return try? JSONDecoder().decode([String: HeaderValue].self, from: Data(json)) }
        return value.objectValue?.mapValues { $0.stringValue.map(HeaderValue.string) ?? .other }
    }
}
