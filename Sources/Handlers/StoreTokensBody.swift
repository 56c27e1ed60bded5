#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulseDomain

/// Reads and validates a store-tokens body, JSON or form-urlencoded, into ``IncomingTokens``.
enum StoreTokensBody {
    /// Bodies over this are refused with 413 (the runtime refuses them first, undecoded).
    static let maxBytes = APIRequest.maximumBodyBytes
    /// The longest lifetime accepted: Google's access tokens live one hour; a day is generous.
    static let maxExpiresIn = 86_400

    /// Parses `body` as its content type says. A missing content type is read as JSON
    /// (API Gateway test events often carry none).
    /// - Throws: ``APIError`` 413, 415 or 400.
    static func parse(body: [UInt8], contentType: String?) throws(APIError) -> IncomingTokens {
        guard body.count <= maxBytes else { throw .payloadTooLarge(limit: maxBytes) }
        let mediaType = MediaType(contentType)
        if let charset = mediaType.charset, charset != "utf-8", charset != "utf8" {
            throw .unsupportedMediaType
        }
        switch mediaType.essence {
        case "application/json", "":
            return try validate(jsonFields(body))
        case "application/x-www-form-urlencoded":
            return try validate(formFields(body))
        default:
            throw .unsupportedMediaType
        }
    }

    private static func jsonFields(_ body: [UInt8]) throws(APIError) -> [String: JSONValue] {
        guard !body.isEmpty else { throw .invalidRequest("The body is empty; send a JSON object with access_token.") }
        guard String(validating: body, as: UTF8.self) != nil else { throw .invalidRequest("The body is not valid UTF-8.") }
        let value: JSONValue
        do {
            value = try JSONBodyParser.parse(body)
        } catch .duplicateKey {
            throw .invalidRequest("The body repeats a key; send each field once.")
        } catch .tooDeep {
            throw .invalidRequest("The body nests deeper than \(JSONBodyParser.maximumDepth) levels.")
        } catch .numberOutOfRange {
            throw .invalidRequest("The body holds a number too large to represent.")
        } catch {
            throw .invalidRequest("The body is not valid JSON.")
        }
        guard case .object(let fields) = value else { throw .invalidRequest("The body must be a JSON object, not \(value.typeName).") }
        return fields
    }

    private static func formFields(_ body: [UInt8]) throws(APIError) -> [String: JSONValue] {
        guard let pairs = FormURLEncoding.fields(of: body) else {
            throw .invalidRequest("The form body has a malformed percent escape or is not UTF-8.")
        }
        var fields: [String: JSONValue] = [:]
        var scopes: [String] = []
        for (key, value) in pairs {
            // As in JSON bodies, a field sent twice is refused, not resolved by order;
            // only scope may repeat (one value per scope is a common form encoding).
            if fields[key] != nil, key != "scope", key != "scope[]" {
                throw .invalidRequest("The form body repeats a field; only scope may repeat.")
            }
            if key == "scope" || key == "scope[]" {
                scopes += value.split(separator: " ").map(String.init)
            } else if key == "expires_in" {
                guard let number = Int(value) else { throw .invalidRequest("expires_in must be an integer number of seconds.") }
                fields[key] = .integer(Int64(number))
            } else {
                fields[key] = .string(value)
            }
        }
        if pairs.contains(where: { $0.key == "scope" || $0.key == "scope[]" }) {
            fields["scope"] = .array(scopes.map(JSONValue.string))
        }
        return fields
    }

    private static func validate(_ fields: [String: JSONValue]) throws(APIError) -> IncomingTokens {
        let accessToken = try requiredString(fields, "access_token", maxBytes: 4096)
        let refreshToken = try optionalString(fields, "refresh_token", maxBytes: 1024)
        let email = try optionalString(fields, "email", maxBytes: 320)
        if let email, !isPlausibleAddress(email) {
            throw .invalidRequest("email must be an email address.")
        }
        let tokenType = try optionalString(fields, "token_type", maxBytes: 32) ?? "Bearer"
        // The OAuth client the app signed in with (its GIDClientID): only the order in which
        // our clients are tried, so any string is taken; Google's answer decides.
        let clientID = try optionalString(fields, "client_id", maxBytes: 256)
        return IncomingTokens(
            accessToken: accessToken, refreshToken: refreshToken, expiresIn: try expiresIn(fields),
            scopes: try scopes(fields), email: email, tokenType: tokenType, clientID: clientID
        )
    }

    /// The app's email hint is stored as sent and shown by the console: one `@` between a
    /// local part and a domain of non-empty labels, with no whitespace, control or format
    /// characters (bidi overrides, zero-width marks, prepend scalars) and none of `<>"&`,
    /// backquote or backslash (an apostrophe stays: Google Workspace addresses may hold one).
    /// Checked by Unicode scalar: a grapheme cluster can hide a `<`.
    static func isPlausibleAddress(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        guard !parts[1].split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else { return false }
        return email.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                return false
            default:
                return !scalar.properties.isWhitespace && !"<>\"&`\\".unicodeScalars.contains(scalar)
            }
        }
    }

    private static func requiredString(_ fields: [String: JSONValue], _ key: String, maxBytes: Int) throws(APIError) -> String {
        guard let value = try optionalString(fields, key, maxBytes: maxBytes) else {
            throw .invalidRequest("\(key) is required.")
        }
        return value
    }

    /// A string field; absent, null and empty all read as absent.
    private static func optionalString(_ fields: [String: JSONValue], _ key: String, maxBytes: Int) throws(APIError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let value)?:
            guard !value.isEmpty else { return nil }
            guard value.utf8.count <= maxBytes else { throw .invalidRequest("\(key) is longer than \(maxBytes) bytes.") }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidRequest("\(key) contains control characters.")
            }
            return value
        case let other?:
            throw .invalidRequest("\(key) must be a string, not \(other.typeName).")
        }
    }

    private static func expiresIn(_ fields: [String: JSONValue]) throws(APIError) -> Int {
        switch fields["expires_in"] {
        case nil, .null?:
            return 3600
        case .integer(let value)?:
            guard value >= 1, value <= Int64(maxExpiresIn) else {
                throw .invalidRequest("expires_in must be a whole number of seconds from 1 to \(maxExpiresIn).")
            }
            return Int(value)
        case .number(let value)?:
            // 3600.0 is a whole number; 1.5 or 1e9 is not one we accept.
            guard value.rounded() == value, value >= 1, value <= Double(maxExpiresIn) else {
                throw .invalidRequest("expires_in must be a whole number of seconds from 1 to \(maxExpiresIn).")
            }
            return Int(value)
        case let other?:
            throw .invalidRequest("expires_in must be an integer, not \(other.typeName).")
        }
    }

    private static func scopes(_ fields: [String: JSONValue]) throws(APIError) -> [String]? {
        switch fields["scope"] {
        case nil, .null?:
            return nil
        case .array(let items)?:
            var scopes: [String] = []
            for item in items {
                guard case .string(let scope) = item else { throw .invalidRequest("scope must be a list of strings.") }
                scopes += scope.split(separator: " ").map(String.init)
            }
            guard scopes.count <= 50, scopes.allSatisfy({ $0.utf8.count <= 512 }) else {
                throw .invalidRequest("scope lists at most 50 scopes of at most 512 bytes each.")
            }
            return scopes
        case .string(let scope)?:
            // Google's own token answers space-join scopes; accept that form too.
            return try scopes(["scope": .array(scope.split(separator: " ").map { .string(String($0)) })])
        case let other?:
            throw .invalidRequest("scope must be a list of strings, not \(other.typeName).")
        }
    }
}

/// `application/x-www-form-urlencoded` bodies: `a=1&b=two+words&b=again`.
package enum FormURLEncoding {
    /// The fields in order; repeated keys appear repeatedly.
    /// - Returns: `nil` when a percent escape is malformed or the text is not UTF-8.
    package static func fields(of body: [UInt8]) -> [(key: String, value: String)]? {
        var fields: [(key: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(parts[0]) else { return nil }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            guard let value else { return nil }
            fields.append((key, value))
        }
        return fields
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        PercentDecoding.decode(bytes, plusAsSpace: true, strict: true).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
