import Foundation
import PayPulseDomain
import Testing

/// RFC 7519 §2: a NumericDate is any JSON number, so `exp`, `nbf` and `iat` may carry a
/// fraction (several identity providers write one). Each is compared as a number; every
/// other claim rule stays.
@Suite("JWT NumericDate with a fraction")
struct NumericDateTests {
    @Test("exp, nbf and iat with fractions are accepted")
    func fractionsAccepted() async throws {
        let now = AuthFixture.nowSeconds
        let user = try await acceptedPayload(TokenForge.payload([
            "exp": "\(now + 600).25", "nbf": "\(now - 10).5", "iat": "\(now - 3600).123456",
        ]))
        #expect(user.userID.rawValue == "user-1")
        // Exponent notation is a JSON number too.
        _ = try await acceptedPayload(TokenForge.payload(["exp": "1.8000006005e9"]))
    }

    @Test("a fractional exp is compared as a number, leeway included")
    func fractionalExpiry() async throws {
        let now = AuthFixture.nowSeconds
        _ = try await acceptedPayload(TokenForge.payload(["exp": "\(now - 59).5"]))
        try await expectRefusedPayload(TokenForge.payload(["exp": "\(now - 61).5"]), .expired)
        try await expectRefusedPayload(TokenForge.payload(["exp": "\(now - 3600).75"]), .expired)
    }

    @Test("the clock is read in whole seconds: a fraction of our clock does not cut a token's last second")
    func clockInWholeSeconds() async throws {
        let token = try await TokenForge.hmac(payload: TokenForge.payload(["exp": "\(AuthFixture.nowSeconds - 60).5"]))
        // At now + 0.9 s the clock reads now: now - 60 s of leeway is before exp (now - 59.5).
        let user = try await AuthFixture.authenticator()
            .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now.addingTimeInterval(0.9))
        #expect(user.userID.rawValue == "user-1")
    }

    @Test("a fractional nbf ahead of the leeway is refused")
    func fractionalNotBefore() async throws {
        let now = AuthFixture.nowSeconds
        _ = try await acceptedPayload(TokenForge.payload(["nbf": "\(now + 60).0"]))
        try await expectRefusedPayload(TokenForge.payload(["nbf": "\(now + 60).5"]), .notYetValid)
    }

    @Test("a NumericDate that is not a number still fails", arguments: [#""1800000600.5""#, "true", "[1800000600]", #"{"s":1}"#])
    func nonNumbersFail(value: String) async throws {
        try await expectRefusedPayload(TokenForge.payload(["exp": value]), .malformedClaims)
        try await expectRefusedPayload(TokenForge.payload(["nbf": value]), .malformedClaims)
        try await expectRefusedPayload(TokenForge.payload(["iat": value]), .malformedClaims)
    }
}
