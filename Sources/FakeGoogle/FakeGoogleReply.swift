import Foundation

/// What the fake does with one request once decided: a JSON answer, or a scripted stall
/// or reset.
enum FakeGoogleReply: Sendable {
    case answer(status: Int, headers: [String: String], body: String)
    case stall
    case reset
    case truncate

    /// Google sends its OAuth answers as uncacheable JSON.
    static let jsonHeaders = [
        "Content-Type": "application/json; charset=utf-8",
        "Cache-Control": "no-cache, no-store, max-age=0, must-revalidate",
        "Pragma": "no-cache",
    ]

    /// `{"error": error, "error_description": description}` with `status`.
    static func error(_ status: Int, _ error: String, _ description: String, headers: [String: String] = [:]) -> FakeGoogleReply {
        .answer(
            status: status, headers: jsonHeaders.merging(headers) { _, new in new },
            body: json(["error": error, "error_description": description])
        )
    }

    /// A 200 with a JSON body.
    static func ok(_ object: [String: any Sendable]) -> FakeGoogleReply {
        .answer(status: 200, headers: jsonHeaders, body: json(object))
    }

    /// What a scripted fault answers; `nil` for `.pass` (Google's own answer).
    init?(fault: FakeGoogleFault) {
        switch fault {
        case .pass:
            return nil
        case .status(let status, let retryAfter):
            let headers = retryAfter.map { ["Retry-After": "\($0)"] } ?? [:]
            switch status {
            case 429: self = .error(status, "rate_limit_exceeded", "Rate limit exceeded.", headers: headers)
            case 500..<600: self = .error(status, "internal_failure", "Backend Error", headers: headers)
            default: self = .error(status, "invalid_request", "Scripted fault.", headers: headers)
            }
        case .response(let status, let headers, let body):
            self = .answer(status: status, headers: headers, body: body)
        case .stall:
            self = .stall
        case .reset:
            self = .reset
        case .truncate:
            self = .truncate
        }
    }

    var action: ScriptedHTTPServer.Action {
        switch self {
        case .answer(let status, let headers, let body): .respond(status: status, headers: headers, body: body)
        case .stall: .stall
        case .reset: .close
        case .truncate: .truncate(announced: 200, body: #"{"access_token":"ya29.trunc"#)
        }
    }

    private static func json(_ object: [String: any Sendable]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
