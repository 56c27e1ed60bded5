// libFuzzer target: bytes as the bearer token of an Authorization header, through the real
// Authenticator with a real HS256 key: header size and shape (BearerToken), base64url
// segments (Base64URL), the JOSE header policy (TokenHeaderPolicy), then the HS256
// signature check (HS256Key) and the claim checks (AccessTokenClaims).
import Foundation
import PayPulseDomain
import PayPulseFuzzSupport

LibFuzzer.run { data, count in
    let token = String(decoding: LibFuzzer.bytes(data, count), as: UTF8.self)
    let outcome = runBlocking {
        do throws(AuthenticationError) {
            let user = try await JWTFront.authenticator.authenticate(
                authorizationHeader: "Bearer " + token, authorizerClaims: nil, now: JWTFront.now
            )
            return Result<AuthenticatedUser, AuthenticationError>.success(user)
        } catch {
            return .failure(error)
        }
    }
    switch outcome {
    case .success:
        precondition(JWTFront.hasValidSignature(token), "a token without a valid HS256 signature was accepted")
    case .failure(let error):
        // Bytes, not String.contains: Foundation's version stops at a NUL in the token.
        let tokenBytes = Array(token.utf8)
        precondition(
            tokenBytes.count < 16 || !Array(error.description.utf8).containsRun(tokenBytes),
            "an error names the token"
        )
    }
    return 0
}
