import Crypto

extension SigV4Signer {
    /// The signing key for one day: `"AWS4" + secret` HMAC-chained through the day,
    /// region, service and `aws4_request`. It scopes the secret so a leaked key is only
    /// good for that day, region and service.
    func signingKey(day: String) -> [UInt8] {
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] {
            key = Self.hmac(key: key, Array(part.utf8))
        }
        return key
    }

    /// HMAC-SHA256 of `message` under `key`.
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }
}
