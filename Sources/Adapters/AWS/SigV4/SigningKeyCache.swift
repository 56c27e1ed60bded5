import Synchronization

/// The last day's signing key of one signer. Deriving it takes five HMACs, which were a
/// tenth of a warm invocation's CPU when done for every request; it only changes when the
/// UTC day does.
final class SigningKeyCache: Sendable {
    private let entry = Mutex<(day: String, key: [UInt8])?>(nil)

    /// The key for `day`, derived by `derive` only when the cached one is for another day.
    func key(day: String, derive: (String) -> [UInt8]) -> [UInt8] {
        if let cached = entry.withLock({ $0 }), cached.day == day { return cached.key }
        let key = derive(day)
        entry.withLock { $0 = (day, key) }
        return key
    }
}
