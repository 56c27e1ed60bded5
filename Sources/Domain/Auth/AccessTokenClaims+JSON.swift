#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

extension AccessTokenClaims {
    /// The claims of a verified payload, or `nil` when it is not a claims object.
    ///
    /// Read by hand from ``JSONValue/fastParse(_:)`` under the rules of `init(from:)`
    /// (`JSONDecoder` cost more than the rest of the request's verification); a payload
    /// that parser leaves to `JSONDecoder` (a repeated claim, say) is decoded by it.
    static func decode(_ payload: [UInt8]) -> AccessTokenClaims? {
        guard let value = JSONValue.fastParse(payload) else { return try? JSONDecoder().decode(Self.self, from: Data(payload)) }
        guard case .object(let fields) = value else { return nil }
        return try? AccessTokenClaims(fields: fields)
    }

    private init(fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        switch fields["sub"] {
        case .string(let value)?: subject = .value(value)
        case nil, .null?: subject = .missing
        default: subject = .notString
        }
        issuer = try fields.string("iss")
        if case .string(let single)? = fields["aud"] { audience = [single] } else { audience = try fields.strings("aud") }
        expiration = try fields.double("exp").map(Date.init(timeIntervalSince1970:))
        notBefore = try fields.double("nbf").map(Date.init(timeIntervalSince1970:))
        issuedAt = try fields.double("iat").map(Date.init(timeIntervalSince1970:))
        name = try? fields.string("name")
        email = try? fields.string("email")
    }
}
