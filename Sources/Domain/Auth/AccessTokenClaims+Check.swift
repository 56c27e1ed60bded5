#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AccessTokenClaims {
    /// Checks the registered claims and returns the user.
    ///
    /// `now` is taken in whole seconds and compared with the claims as numbers (a claim may
    /// carry a fraction): the token is accepted while `now - leeway < exp` and
    /// `nbf <= now + leeway`. `exp` is
    /// required: a token that never expires is refused.
    /// - Parameters:
    ///   - issuer: The required `iss`.
    ///   - audience: The value `aud` must contain.
    ///   - now: The current time.
    ///   - leeway: Clock-skew leeway in seconds, already clamped to 0...60.
    /// - Throws: ``AuthenticationError`` naming the first claim that fails.
    func check(issuer: String, audience: String, now: Date, leeway: Int) throws(AuthenticationError) -> AuthenticatedUser {
        guard self.issuer == issuer else { throw .wrongIssuer }
        guard self.audience?.contains(audience) == true else { throw .wrongAudience }

        let nowSeconds = Self.wholeSeconds(now)
        guard let expiration else { throw .missingExpiry }
        guard nowSeconds - Double(leeway) < expiration.timeIntervalSince1970 else { throw .expired }
        if let notBefore, notBefore.timeIntervalSince1970 > nowSeconds + Double(leeway) {
            throw .notYetValid
        }

        let raw: String
        switch subject {
        case .missing: throw .missingSubject
        case .notString: throw .subjectNotString
        case .value(let value): raw = value
        }
        guard let userID = UserID(raw) else { throw .unsafeSubject }
        return AuthenticatedUser(userID: userID, name: name, email: email)
    }

    private static func wholeSeconds(_ date: Date) -> Double {
        date.timeIntervalSince1970.rounded(.down)
    }
}
