import Foundation
import _CryptoExtras

/// How the fake's RISC management API checks a caller, as Google does: the bearer token is
/// a service account's self-signed RS256 JWT, its header `kid` one of the account's keys,
/// `iss` = `sub` = the account, `aud` the API's service name, not expired and at most an
/// hour long. A token that fails gets 401 `UNAUTHENTICATED`; an account without the role,
/// 403 `PERMISSION_DENIED`.
///
/// Written apart from the client's signer on purpose (swift-crypto's RSA check directly), so
/// the fake does not approve the code under test with that code.
enum FakeGoogleRISCAuthorization {
    static let audience = "https://risc.googleapis.com/google.identity.risc.v1beta.RiscManagementService"
    /// How far ahead of the fake's clock an `iat` may be.
    static let leeway: TimeInterval = 300

    /// The account `authorization` proves, or the refusal with its reason.
    static func check(
        _ authorization: String?, accounts: [FakeGoogleServiceAccount], now: Date
    ) -> Result<FakeGoogleServiceAccount, Refusal> {
        guard let authorization, authorization.hasPrefix("Bearer "), authorization.count > "Bearer ".count else { return .failure(.missing) }
        let token = authorization.dropFirst("Bearer ".count)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = base64URL(parts[0]), let claimBytes = base64URL(parts[1]), let signature = base64URL(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: claimBytes) as? [String: Any]
        else { return .failure(.invalid("not a JWT")) }
        guard header["alg"] as? String == "RS256" else { return .failure(.invalid("alg is not RS256")) }
        guard let kid = header["kid"] as? String, let account = accounts.first(where: { $0.keyID == kid }) else {
            return .failure(.invalid("kid names no key of a known service account"))
        }
        guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: account.publicKeyPEM),
              key.isValidSignature(
                  _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5
              )
        else { return .failure(.invalid("the signature does not verify under the key kid names")) }
        guard claims["iss"] as? String == account.email, claims["sub"] as? String == account.email else {
            return .failure(.invalid("iss and sub are not the key's service account"))
        }
        guard claims["aud"] as? String == audience else { return .failure(.invalid("aud is not the RISC management service")) }
        guard let iat = (claims["iat"] as? NSNumber)?.doubleValue, let exp = (claims["exp"] as? NSNumber)?.doubleValue else {
            return .failure(.invalid("iat or exp missing"))
        }
        let time = now.timeIntervalSince1970
        guard exp > time else { return .failure(.invalid("expired")) }
        guard iat <= time + leeway, exp - iat <= 3600 else { return .failure(.invalid("iat in the future or longer than an hour")) }
        guard account.permitted else { return .failure(.notPermitted) }
        return .success(account)
    }

    /// Why a caller was refused, and Google's answer for it.
    enum Refusal: Error, Equatable {
        case missing
        case invalid(String)
        case notPermitted

        /// What the fake records.
        var reason: String {
            switch self {
            case .missing: "no bearer token"
            case .invalid(let why): why
            case .notPermitted: "the service account lacks roles/riscconfigs.admin"
            }
        }

        var reply: FakeGoogleReply {
            switch self {
            case .missing:
                .googleAPIError(401, "UNAUTHENTICATED", "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
            case .invalid:
                .googleAPIError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
            case .notPermitted:
                .googleAPIError(403, "PERMISSION_DENIED", "The caller does not have permission")
            }
        }
    }

    private static func base64URL(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}
