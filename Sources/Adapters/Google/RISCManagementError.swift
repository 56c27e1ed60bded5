import PayPulseCoding
import PayPulseTransport

/// Why a call to Google's RISC management API did not do what was asked: one line for the
/// operator, never carrying the service account's token or key.
package struct RISCManagementError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        /// Google answered with its error object.
        case google
        /// An answer that is neither what was asked for nor Google's error object.
        case unexpectedAnswer
        /// No answer: the connection failed or timed out.
        case unavailable
        /// Refused here, before asking: Google would refuse it too.
        case receiverNotAllowed
        /// The service account's token could not be made.
        case signing
    }

    private let code: Code
    /// The HTTP status of Google's answer, when there was one.
    package let httpStatus: Int?
    /// Google's status word (`PERMISSION_DENIED`, `UNAUTHENTICATED`, `NOT_FOUND`, …), when
    /// its error object said.
    package let googleStatus: String?
    /// What went wrong, in Google's words when it gave some.
    package let message: String

    private init(_ code: Code, httpStatus: Int? = nil, googleStatus: String? = nil, message: String) {
        self.code = code
        self.httpStatus = httpStatus
        self.googleStatus = googleStatus
        // One line, bounded: an odd body must not flood the terminal.
        self.message = String(message.split(whereSeparator: \.isNewline).joined(separator: " ").prefix(Self.messageLimit))
    }

    private static let messageLimit = 400

    /// Whether another attempt may help: no answer, 429 or a 5xx.
    var isTransient: Bool {
        code == .unavailable || httpStatus.map { $0 == 429 || (500..<600).contains($0) } ?? false
    }

    package var description: String {
        switch code {
        case .google: "Google answered \(httpStatus ?? 0) \(googleStatus ?? "")\(message.isEmpty ? "" : ": " + message)"
        case .unexpectedAnswer: "Google answered HTTP \(httpStatus ?? 0) that cannot be read: \(message)"
        case .unavailable: "no answer from Google: \(message)"
        case .receiverNotAllowed, .signing: message
        }
    }

    /// The same error with every occurrence of `secrets` replaced (Google does not echo a
    /// bearer token, but a message is scrubbed anyway before it leaves).
    func redacting(_ secrets: [String]) -> RISCManagementError {
        var message = self.message
        for secret in secrets where !secret.isEmpty { message = message.replacing(secret, with: "[redacted]") }
        return RISCManagementError(code, httpStatus: httpStatus, googleStatus: googleStatus, message: message)
    }
}

extension RISCManagementError {
    /// A non-2xx answer: Google's error object `{"error": {"code", "message", "status"}}`
    /// when the body is one.
    init(answer response: HTTPResponse) {
        let error = (try? JSONValue.decode(response.body))?["error"]
        guard let status = error?["status"]?.stringValue, !status.isEmpty else {
            self.init(.unexpectedAnswer, httpStatus: response.status, message: "not Google's error object")
            return
        }
        self.init(.google, httpStatus: response.status, googleStatus: String(status.prefix(64)), message: error?["message"]?.stringValue ?? "")
    }

    /// A 2xx answer whose body is not what the call returns.
    static func unreadable(status: Int, _ what: String) -> RISCManagementError {
        RISCManagementError(.unexpectedAnswer, httpStatus: status, message: "expected \(what)")
    }

    /// No answer arrived.
    init(transport: TransportError) {
        self.init(.unavailable, message: transport.description)
    }

    /// The task was cancelled while waiting to retry.
    static let cancelled = RISCManagementError(.unavailable, message: "cancelled")

    /// A receiver Google would refuse, with why.
    static func receiverNotAllowed(_ why: String) -> RISCManagementError {
        RISCManagementError(.receiverNotAllowed, message: why)
    }

    /// The signer failed; only the error's type is kept, in case its text quotes the key.
    static func signing(_ error: any Error) -> RISCManagementError {
        RISCManagementError(.signing, message: "cannot sign the service account's token (\(type(of: error)))")
    }
}
