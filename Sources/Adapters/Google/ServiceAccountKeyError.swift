/// A key file that cannot be used: one line naming the file and the member at fault, never
/// a member's value.
package struct ServiceAccountKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Problem: Sendable, Equatable {
        case unreadable
        case notJSON
        case missing(String)
        case notText(String)
        case wrongType(String)
        case unusableKey
    }

    /// The key file.
    package let file: String
    let problem: Problem

    init(file: String, _ problem: Problem) {
        self.file = file
        self.problem = problem
    }

    /// The file's `private_key` is no RSA private key a signer can use (read by the signer,
    /// which this module does not hold).
    package static func unusablePrivateKey(file: String) -> ServiceAccountKeyError { ServiceAccountKeyError(file: file, .unusableKey) }

    /// The member at fault, e.g. `private_key`, when one is.
    package var member: String? {
        switch problem {
        case .missing(let name), .notText(let name): name
        case .wrongType: "type"
        case .unusableKey: "private_key"
        case .unreadable, .notJSON: nil
        }
    }

    package var description: String {
        let what =
            switch problem {
            case .unreadable: "cannot be read"
            case .notJSON: "is not a JSON object (a Google service-account key file is)"
            case .missing(let name): "is not a Google service-account key: \"\(name)\" is missing"
            case .notText(let name): "is not a Google service-account key: \"\(name)\" is not a non-empty string"
            case .unusableKey: "has a \"private_key\" that is not an RSA private key in PEM (2048 bits or more)"
            case .wrongType(let type): "is not a Google service-account key: \"type\" is \(Self.quotedIfWord(type)), not \"service_account\""
            }
        return "\(file) \(what)"
    }

    /// Google's types are short snake_case words (`authorized_user`, `external_account`);
    /// anything else in that member is not echoed.
    private static func quotedIfWord(_ text: String) -> String {
        let isWord = text.utf8.count <= 40 && text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "_") }
        return isWord ? "\"\(text)\"" : "something else"
    }
}
