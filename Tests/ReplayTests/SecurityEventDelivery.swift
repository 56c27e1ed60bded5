import Foundation
import _CryptoExtras

/// Google's events of `events/security-events/` delivered now, as Google would deliver
/// them: each token that verifies under the replay's RISC key is signed again with `iat`
/// set to the time of the replay, its other claims as committed. An event acts on a grant
/// only if it is not older than the grant's last proof (docs/functions.md, "Order"), and the
/// cases run first prove their grants during the replay, long after the committed `iat`.
/// Forged tokens (another key, another algorithm, a broken signature) stay as they are.
enum SecurityEventDelivery {
    private static let key: _RSA.Signing.PrivateKey? = try? _RSA.Signing.PrivateKey(pemRepresentation: ReplayManifest.shared.risc_keys.private_key_pem)

    /// `event` (an API Gateway event) with its body's token issued now, when it is one of ours.
    static func now(_ event: Data) -> Data {
        guard let key, let object = try? JSONSerialization.jsonObject(with: event) as? [String: Any], let body = object["body"] as? String
        else { return event }
        // API Gateway may carry the body base64-encoded.
        let encoded = object["isBase64Encoded"] as? Bool == true
        guard let token = encoded ? Data(base64Encoded: body).map({ String(decoding: $0, as: UTF8.self) }) : body,
              let fresh = reissued(token, key: key, at: Date())
        else { return event }
        return Data(String(decoding: event, as: UTF8.self).replacing(body, with: encoded ? Data(fresh.utf8).base64EncodedString() : fresh).utf8)
    }

    private static func reissued(_ token: String, key: _RSA.Signing.PrivateKey, at now: Date) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = decode(parts[2]), let payload = decode(parts[1]),
              key.publicKey.isValidSignature(
                  _RSA.Signing.RSASignature(rawRepresentation: signature), for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5
              ),
              var claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], claims["iat"] is Int || claims["iat"] is NSNumber,
              let header = decode(parts[0]), String(decoding: header, as: UTF8.self).contains(#""alg":"RS256""#)
        else { return nil }
        claims["iat"] = Int(now.timeIntervalSince1970)
        guard let body = try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]) else { return nil }
        let input = "\(parts[0]).\(encode(body))"
        guard let signed = try? key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5) else { return nil }
        return input + "." + encode(signed.rawRepresentation)
    }

    private static func decode(_ segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    private static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
