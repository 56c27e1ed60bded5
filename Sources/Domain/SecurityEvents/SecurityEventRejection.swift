/// Why a Security Event Token was refused: the error object of RFC 8935 §2.3, which the
/// receiver sends with its 400 (`{"err": …, "description": …}`).
///
/// ``err`` is one of the RFC's codes; ``description`` is a fixed phrase chosen here, never
/// a piece of the token, so the answer and the logs can carry it as they are.
package struct SecurityEventRejection: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable {
        case tooLarge, notAJWS, malformedHeader, unexpectedHeaderParameter
        case algorithmNotAllowed, unknownKey, badSignature
        case malformedClaims, missingIssuer, missingAudience, missingIssuedAt, missingID, noEvents, malformedEvent
        case issuedInFuture, wrongIssuer, wrongAudience
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The RFC 8935 error code: `invalid_request` (not a SET, or a required claim missing or
    /// mistyped), `invalid_key` (the key or algorithm is not Google's, or the signature
    /// fails), `invalid_issuer` or `invalid_audience`.
    package var err: String {
        switch code {
        case .tooLarge, .notAJWS, .malformedHeader, .unexpectedHeaderParameter, .malformedClaims, .missingIssuer, .missingAudience,
             .missingIssuedAt, .missingID, .noEvents, .malformedEvent, .issuedInFuture:
            "invalid_request"
        case .algorithmNotAllowed, .unknownKey, .badSignature: "invalid_key"
        case .wrongIssuer: "invalid_issuer"
        case .wrongAudience: "invalid_audience"
        }
    }

    /// What is wrong, in a sentence for Google's delivery logs and ours. Never the token.
    package var description: String {
        switch code {
        case .tooLarge: "the body is larger than 8 KiB"
        case .notAJWS: "the body is not a signed JWT (three non-empty base64url segments)"
        case .malformedHeader: "the JOSE header is not a base64url JSON object"
        case .unexpectedHeaderParameter: "the JOSE header has a parameter other than alg, typ and kid, or an unexpected typ"
        case .algorithmNotAllowed: "alg is not RS256, the algorithm of the key kid names"
        case .unknownKey: "kid names no key of the RISC key set (or is missing where the set has several)"
        case .badSignature: "the signature does not verify under the key kid names"
        case .malformedClaims: "the claims are not a JSON object"
        case .missingIssuer: "iss is missing or not a string"
        case .missingAudience: "aud is missing or not a string or an array of strings"
        case .missingIssuedAt: "iat is missing or not a number"
        case .missingID: "jti is missing or not a non-empty string"
        case .noEvents: "events is missing, not an object, or empty"
        case .malformedEvent: "an event's payload is not a JSON object"
        case .issuedInFuture: "iat is in the future (beyond the leeway)"
        case .wrongIssuer: "iss is not the issuer of the RISC discovery document"
        case .wrongAudience: "aud names none of our OAuth client IDs"
        }
    }

    /// The body is over the size bound; refused unparsed.
    package static let tooLarge = Self(.tooLarge)
    /// Not a compact JWS: three non-empty base64url segments.
    package static let notAJWS = Self(.notAJWS)
    /// The header segment is not a JSON object.
    package static let malformedHeader = Self(.malformedHeader)
    /// A header parameter such as `jku`, `jwk`, `x5u` or `crit`, or a `typ` other than a JWT's or a SET's.
    package static let unexpectedHeaderParameter = Self(.unexpectedHeaderParameter)
    /// `alg` is not RS256 (`none`, HS256, ES256, …), or the key `kid` names is not an RSA key.
    package static let algorithmNotAllowed = Self(.algorithmNotAllowed)
    /// The `kid` names no key of the set, even after the one refetch a minute allows.
    package static let unknownKey = Self(.unknownKey)
    /// The RS256 signature does not verify.
    package static let badSignature = Self(.badSignature)
    /// The payload is not a JSON object.
    package static let malformedClaims = Self(.malformedClaims)
    /// No `iss`, or not a string.
    package static let missingIssuer = Self(.missingIssuer)
    /// No `aud`, or neither a string nor an array of strings.
    package static let missingAudience = Self(.missingAudience)
    /// No `iat`, or not a NumericDate.
    package static let missingIssuedAt = Self(.missingIssuedAt)
    /// No `jti`, or not a non-empty string: redelivery de-duplication keys on it.
    package static let missingID = Self(.missingID)
    /// No `events` object with at least one event.
    package static let noEvents = Self(.noEvents)
    /// An event whose payload is not a JSON object (RFC 8417 §2.2).
    package static let malformedEvent = Self(.malformedEvent)
    /// `iat` is ahead of now by more than the leeway.
    package static let issuedInFuture = Self(.issuedInFuture)
    /// `iss` differs from the discovery document's issuer (a trailing slash aside).
    package static let wrongIssuer = Self(.wrongIssuer)
    /// `aud` names none of our client IDs.
    package static let wrongAudience = Self(.wrongAudience)
}
