/// One of `count` slices of the users, by a stable hash of the user id, so that n scheduled
/// invocations split the work without coordinating.
public struct Shard: Sendable, Equatable, Codable {
    /// This slice, `0..<count`.
    public let index: Int
    /// How many slices.
    public let count: Int

    /// Creates a shard; `nil` unless `count >= 1` and `0 <= index < count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= 10_000, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Everyone.
    public static let all = Shard(index: 0, count: 1)!

    /// Whether `user` falls in this slice. FNV-1a over the UTF-8 bytes: the same on every
    /// machine and release, unlike Swift's seeded `Hasher`.
    public func contains(_ user: UserID) -> Bool {
        Int(Self.stableHash(user.rawValue) % UInt64(count)) == index
    }

    /// 64-bit FNV-1a.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
