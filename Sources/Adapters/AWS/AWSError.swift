#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An error answer from an AWS service (or an emulator), keyed on its error type.
package struct AWSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error type with any namespace stripped, e.g. `ResourceNotFoundException`.
    package let type: String
    /// The service's message (may be empty).
    package let message: String
    /// The HTTP status it came with; emulators differ from AWS here, so do not key on it.
    package let status: Int

    /// Creates an error.
    package init(type: String, message: String, status: Int) {
        self.type = type
        self.message = message
        self.status = status
    }

    package var description: String { message.isEmpty ? "\(type) (HTTP \(status))" : "\(type): \(message) (HTTP \(status))" }

    /// Whether waiting and trying again can help: throttling and server-side failures.
    package var isRetryable: Bool {
        Self.throttlingTypes.contains(type) || Self.serverFaultTypes.contains(type) || status >= 500 || status == 429
    }

    /// Whether the service refused for throttling.
    package var isThrottling: Bool { Self.throttlingTypes.contains(type) || status == 429 }

    private static let throttlingTypes: Set<String> = [
        "ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded",
        "ProvisionedThroughputExceededException", "RequestThrottledException", "RequestThrottled",
        "SlowDown", "ThrottledException",
    ]
    private static let serverFaultTypes: Set<String> = [
        "InternalServiceError", "InternalFailure", "InternalServerError", "ServiceUnavailable",
        "ServiceUnavailableException",
    ]
}

extension AWSError {
    /// Decodes an error answer: the type from `__type` or `X-Amzn-ErrorType` (namespace and
    /// any `:suffix` stripped), the message from `message` or `Message`. Emulators may answer
    /// with an XML `<ErrorResponse>` (moto's IAM check) or with no body at all; those are
    /// read too, and anything else becomes `UnknownError` with the HTTP status.
    static func decode(status: Int, headerType: String?, body: [UInt8]) -> AWSError {
        struct JSONShape: Decodable {
            var type: String?
            var lowerMessage: String?
            var upperMessage: String?
            enum CodingKeys: String, CodingKey {
                case type = "__type", lowerMessage = "message", upperMessage = "Message"
            }
        }
        let json = try? JSONDecoder().decode(JSONShape.self, from: Data(body))
        let text = String(decoding: body.prefix(16_384), as: UTF8.self)
        let rawType = json?.type ?? headerType ?? xmlElement("Code", in: text) ?? (status == 429 ? "ThrottlingException" : "UnknownError")
        let message = json?.lowerMessage ?? json?.upperMessage ?? xmlElement("Message", in: text) ?? ""
        return AWSError(type: strip(rawType), message: message, status: status)
    }

    /// `com.amazonaws.secretsmanager#ResourceNotFoundException` or
    /// `ResourceNotFoundException:http://internal.amazon.com/...` → `ResourceNotFoundException`.
    static func strip(_ raw: String) -> String {
        var type = Substring(raw)
        if let colon = type.firstIndex(of: ":") { type = type[..<colon] }
        if let hash = type.lastIndex(of: "#") { type = type[type.index(after: hash)...] }
        return String(type).trimmingSpaces()
    }

    private static func xmlElement(_ name: String, in text: String) -> String? {
        guard let open = text.firstRange(of: "<\(name)>"), let close = text.firstRange(of: "</\(name)>"),
              open.upperBound <= close.lowerBound else { return nil }
        return String(text[open.upperBound..<close.lowerBound]).trimmingSpaces()
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}

extension AWSError {
    /// Whether a DynamoDB write was refused because its `ConditionExpression` did not hold:
    /// a compare-and-swap that lost, or a create of an item that exists.
    package var isConditionalCheckFailed: Bool { type == "ConditionalCheckFailedException" }
}
