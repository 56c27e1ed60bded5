// libFuzzer target: bytes as the bearer token of an Authorization header, through the real
// Authenticator twice. With a real HS256 key: header size and shape (BearerToken), base64url
// segments (Base64URL), the JOSE header policy (TokenHeaderPolicy), then the HS256
// signature check (HS256Key) and the claim checks (AccessTokenClaims). Under jwks, with an
// issuer's RS256 and ES256 keys: the header policy's kid rules, key selection by kid and
// algorithm (IssuerKeySet), the RSA and P-256 signature checks, the same claim checks.
import Foundation
import PayPulseDomain
import PayPulseFuzzSupport

LibFuzzer.run { data, count in
    let token = String(decoding: LibFuzzer.bytes(data, count), as: UTF8.self)
    for (authenticator, sharedKey) in [(JWTFront.authenticator, true), (JWTFront.issuerAuthenticator, false)] {
        let outcome = runBlocking {
            do throws(AuthenticationError) {
                let user = try await authenticator.authenticate(
                    authorizationHeader: "Bearer " + token, authorizerClaims: nil, now: JWTFront.now
                )
                return Result<AuthenticatedUser, AuthenticationError>.success(user)
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success:
            if sharedKey {
                precondition(JWTFront.hasValidSignature(token), "a token without a valid HS256 signature was accepted")
            } else {
                precondition(JWTFront.hasValidIssuerSignature(token), "a token without a valid RS256 or ES256 signature of the issuer was accepted")
            }
        case .failure(let error):
            // The fixture's keys are always served: only a token naming a key the held set
            // lacks may find them unavailable (503 until the set may be fetched again for it).
            precondition(!error.isUnavailable || !sharedKey && JWTFront.headerNamesAKey(token), "the issuer's keys were unavailable")
            // Bytes, not String.contains: Foundation's version stops at a NUL in the token.
            let tokenBytes = Array(token.utf8)
            precondition(
                tokenBytes.count < 16 || !Array(error.description.utf8).containsRun(tokenBytes),
                "an error names the token"
            )
        }
    }
    return 0
}
