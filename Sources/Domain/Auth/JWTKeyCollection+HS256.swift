import JWTKit

extension JWTKeyCollection {
    /// A collection holding one HS256 key and nothing else, as the default key (no `kid`).
    ///
    /// The caller checks the key length first: jwt-kit only asserts it, which would kill a
    /// debug build instead of failing with a message.
    static func hs256Only(key: [UInt8]) async -> JWTKeyCollection {
        await JWTKeyCollection().add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
    }
}
