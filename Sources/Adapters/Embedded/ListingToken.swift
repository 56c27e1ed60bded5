#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The opaque `nextToken` of a listing: the last name of the page, base64 encoded behind
/// a format tag. Keyset paging stays right when secrets are created between pages.
enum ListingToken {
    private static let tag = "v1:"

    /// The token that continues after `lastName`.
    static func encode(after lastName: String) -> String {
        Data((tag + lastName).utf8).base64EncodedString()
    }

    /// The name a token continues after.
    /// - Throws: ``StoreError/invalidRequest`` for anything this type did not produce.
    static func decode(_ token: String) throws -> String {
        guard let data = Data(base64Encoded: token),
            let text = String(validating: data, as: UTF8.self),
            text.hasPrefix(tag)
        else {
            throw StoreError.invalidRequest.with(message: "invalid nextToken")
        }
        let name = String(text.dropFirst(tag.count))
        do {
            try SecretRules.check(name: name)
        } catch {
            throw StoreError.invalidRequest.with(message: "invalid nextToken")
        }
        return name
    }
}
