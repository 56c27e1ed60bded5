#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// A Google service account's key file, the JSON the Cloud console downloads: `type`
/// `service_account`, `private_key` (PKCS#8 PEM), `private_key_id` and `client_email`; the
/// other members are not needed.
///
/// The private key never reaches a description, a mirror or an error: printing the value
/// shows the account and the key's id alone.
package struct ServiceAccountKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The account's address, `iss` and `sub` of its self-signed tokens.
    package let clientEmail: String
    /// The key's id at Google, the `kid` of its self-signed tokens.
    package let privateKeyID: String
    /// The private key, PEM. Hand it to a signer; never print it.
    package let privateKey: String

    /// Reads the key file at `path`.
    /// - Throws: ``ServiceAccountKeyError`` naming the file and what is wrong with it.
    package init(contentsOf path: String) throws(ServiceAccountKeyError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw ServiceAccountKeyError(file: path, .unreadable) }
        try self.init(json: Array(data), file: path)
    }

    /// Reads a key file's contents.
    /// - Parameters:
    ///   - json: The file's bytes.
    ///   - file: The file's name, for errors.
    /// - Throws: ``ServiceAccountKeyError`` naming the file and what is wrong with it.
    package init(json: [UInt8], file: String) throws(ServiceAccountKeyError) {
        guard case .object(let fields)? = try? JSONValue.decode(json) else { throw ServiceAccountKeyError(file: file, .notJSON) }
        func member(_ name: String) throws(ServiceAccountKeyError) -> String {
            guard let value = fields[name] else { throw ServiceAccountKeyError(file: file, .missing(name)) }
            guard let text = value.stringValue, !text.isEmpty else { throw ServiceAccountKeyError(file: file, .notText(name)) }
            return text
        }
        // An OAuth client file or a user's credentials carry none of the rest: say so first.
        let type = try member("type")
        guard type == "service_account" else { throw ServiceAccountKeyError(file: file, .wrongType(type)) }
        privateKey = try member("private_key")
        privateKeyID = try member("private_key_id")
        clientEmail = try member("client_email")
    }

    /// `service account NAME@PROJECT.iam.gserviceaccount.com (key KEYID)`.
    package var description: String { "service account \(clientEmail) (key \(privateKeyID))" }

    /// The account and key id only, so `dump` and test failures never show the key.
    package var customMirror: Mirror {
        Mirror(self, children: ["clientEmail": clientEmail, "privateKeyID": privateKeyID], displayStyle: .struct)
    }
}
