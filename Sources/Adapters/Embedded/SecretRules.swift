import PayPulsePorts

/// The input limits Secrets Manager enforces, checked before anything is written so the
/// embedded store refuses what AWS would refuse.
enum SecretRules {
    /// The largest secret value, in UTF-8 bytes.
    static let maxValueBytes = 65_536
    /// Name length limits.
    static let nameLengths = 1...512
    /// Client request token length limits (a UUID has 36 characters).
    static let tokenLengths = 32...64
    /// The recovery windows `DeleteSecret` accepts, in days.
    static let recoveryWindowDays = 7...30
    /// The page sizes `ListSecrets` accepts.
    static let pageSizes = 1...100
    /// Tag limits.
    static let tagKeyLengths = 1...128
    static let maxTagValueLength = 256
    static let maxTagsPerSecret = 50

    /// ASCII letters, digits and `/_+=.@-`.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "/_+=.@-".utf8.contains(byte)
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` unless `name` is 1–512 allowed characters.
    static func check(name: String) throws {
        guard nameLengths.contains(name.utf8.count), name.utf8.allSatisfy(isNameByte) else {
            throw StoreError.invalidRequest.with(
                message: "a secret name has 1 to 512 ASCII letters, digits or /_+=.@- characters")
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` when `value` is over 65,536 bytes.
    static func check(value: String) throws {
        guard value.utf8.count <= maxValueBytes else {
            throw StoreError.invalidRequest.with(message: "a secret value has at most \(maxValueBytes) bytes")
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` unless `token` has 32–64 characters.
    static func check(clientRequestToken token: String) throws {
        guard tokenLengths.contains(token.utf8.count) else {
            throw StoreError.invalidRequest.with(message: "a client request token has 32 to 64 characters")
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` when a stage label is empty or over 256 characters.
    static func check(stage: SecretStage) throws {
        guard (1...256).contains(stage.rawValue.utf8.count) else {
            throw StoreError.invalidRequest.with(message: "a stage label has 1 to 256 characters")
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` when a key or value is out of bounds.
    static func check(tags: [String: String]) throws {
        for (key, value) in tags {
            guard tagKeyLengths.contains(key.utf8.count), value.utf8.count <= maxTagValueLength else {
                throw StoreError.invalidRequest.with(message: "a tag key has 1 to 128 characters, a value up to 256")
            }
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` unless `days` is 7–30.
    static func check(recoveryWindowDays days: Int) throws {
        guard recoveryWindowDays.contains(days) else {
            throw StoreError.invalidRequest.with(message: "the recovery window is 7 to 30 days")
        }
    }

    /// - Throws: ``StoreError/invalidRequest`` unless `maxResults` is 1–100.
    static func check(maxResults: Int) throws {
        guard pageSizes.contains(maxResults) else {
            throw StoreError.invalidRequest.with(message: "maxResults is 1 to 100")
        }
    }
}
