import PayPulseDomain
import Testing

@Suite("AuthenticationError")
struct AuthenticationErrorTests {
    /// A real, valid token; each variant below is refused, and no error text may carry it.
    @Test("no error text carries the token, for any refusal")
    func noTokenInErrors() async throws {
        let authenticator = try await AuthFixture.authenticator()
        let token = try await AuthFixture.mint(subject: "user-1", expiresIn: -120)
        let segments = token.split(separator: ".").map(String.init)
        let headers = [
            "Bearer \(token)",                                   // expired
            "Basic \(token)",                                    // not bearer
            "Bearer \(token) \(token)",                          // two tokens
            "Bearer \(token.dropLast(3))",                       // truncated
            "Bearer \(segments[0]).\(segments[1])",              // two segments
            "Bearer \(TokenForge.unsigned(header: #"{"alg":"none"}"#, payload: TokenForge.payload()))",
            "Bearer \(try await TokenForge.hmac(header: #"{"alg":"HS256","kid":"\#(token)"}"#))",
            "Bearer \(try await TokenForge.hmac(payload: TokenForge.payload(["sub": "\"\(token)/x\""])))",
            "Bearer \(token)" + String(repeating: "A", count: 9000),
        ]
        for header in headers {
            await expectRefused(authenticator, header: header)
        }
    }

    @Test("reasons are fixed phrases; the description is 'unauthorized: reason'")
    func description() {
        let errors: [AuthenticationError] = [
            .missingCredentials, .missingAuthorizerClaims, .notBearer, .malformedAuthorization, .tokenTooLarge, .malformedToken, .malformedHeader,
            .algorithmNotAllowed, .unexpectedHeaderParameter, .badSignature, .malformedClaims, .wrongIssuer,
            .wrongAudience, .missingExpiry, .expired, .notYetValid, .missingSubject, .subjectNotString,
            .unsafeSubject,
        ]
        #expect(Set(errors.map(\.reason)).count == errors.count)
        for error in errors {
            #expect(!error.reason.isEmpty)
            #expect(error.description == "unauthorized: \(error.reason)")
        }
        #expect(AuthenticationError.challenge == "Bearer")
        #expect(!AuthenticationError.publicMessage.isEmpty)
    }
}
