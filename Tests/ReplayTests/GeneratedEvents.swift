import Foundation
import PayPulseDomain

/// Events too large or too odd to commit to `events/` (a 1 MiB body, 100k nested
/// brackets, a 1 MB header, bytes that are not UTF-8 in the event itself), built from the
/// SAM samples with a fresh development-key JWT, each with the answer the contract gives.
struct GeneratedEvent: Sendable, CustomStringConvertible {
    enum Expected: Sendable, Equatable {
        /// One JSON response with this status and error code (`nil`: any success body).
        case response(status: Int, code: String?)
        /// Not an event this executable takes: exit 2, one error line, nothing on stdout.
        case badEvent
    }

    var function: String
    var name: String
    var bytes: Data
    var expected: Expected

    var description: String { "\(function)/\(name)" }
}

enum GeneratedEvents {
    private static let oneMiB = 1 << 20

    /// The input-limit cases for the built executables.
    static func limits() async throws -> [GeneratedEvent] {
        let token = try await bearerToken()
        var cases: [GeneratedEvent] = []
        func add(_ function: String, _ name: String, _ bytes: Data, _ expected: GeneratedEvent.Expected) {
            cases.append(GeneratedEvent(function: function, name: name, bytes: bytes, expected: expected))
        }
        func post(_ body: [UInt8], base64: Bool = true, version: String = "v2", headers: [String: String] = [:]) throws -> Data {
            try event(version, method: "POST", template: "post-gmail-tokens", token: token, headers: headers, body: body, base64: base64)
        }

        let tooLarge = GeneratedEvent.Expected.response(status: 413, code: "payload_too_large")
        let invalid = GeneratedEvent.Expected.response(status: 400, code: "invalid_request")
        let unauthorized = GeneratedEvent.Expected.response(status: 401, code: "unauthorized")
        let tokenBody = Array(#"{"access_token":"ya29.limit","scope":["https://www.googleapis.com/auth/gmail.readonly"]}"#.utf8)

        add("store-tokens", "1 MiB base64 body", try post(Array(repeating: UInt8(ascii: "a"), count: oneMiB)), tooLarge)
        add("store-tokens", "1 MiB text body (v1)", try post(Array(repeating: UInt8(ascii: "a"), count: oneMiB), base64: false, version: "v1"), tooLarge)
        add("store-tokens", "64 KiB + 1 base64 body", try post(Array(repeating: UInt8(ascii: " "), count: 65_536) + [UInt8(ascii: "x")]), tooLarge)
        add("store-tokens", "100k nested brackets in the body", try post(Array(repeating: UInt8(ascii: "["), count: 100_000)), tooLarge)
        add("store-tokens", "60k nested brackets in the body", try post(Array(repeating: UInt8(ascii: "["), count: 60_000)), invalid)
        add("store-tokens", "60k nested objects in the body", try post(Array(String(repeating: #"{"a":"#, count: 10_000).utf8)), invalid)
        add("store-tokens", "100k nested brackets as the event", Data(repeating: UInt8(ascii: "["), count: 100_000), .badEvent)
        var nested = try JSONSerialization.jsonObject(with: try post(tokenBody)) as! [String: Any]
        nested["stageVariables"] = "PLACEHOLDER"
        let nestedText = String(decoding: try JSONSerialization.data(withJSONObject: nested), as: UTF8.self)
            .replacingOccurrences(of: #""PLACEHOLDER""#, with: String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
        add("store-tokens", "100k nested brackets inside the event", Data(nestedText.utf8), .badEvent)

        let huge = String(repeating: "A", count: oneMiB)
        add("store-tokens", "1 MB Authorization header", try post(tokenBody, headers: ["authorization": "Bearer " + huge]), unauthorized)
        add("user-profile", "1 MB Authorization header", try event("v2", method: "GET", template: "get-user-me", token: nil,
                                                                      headers: ["authorization": "Bearer " + huge]), unauthorized)
        add("disconnect", "1 MB Authorization header (v1)", try event("v1", method: "DELETE", template: "delete-gmail-tokens", token: nil,
                                                                       headers: ["Authorization": "Bearer " + huge]), unauthorized)
        add("store-tokens", "1 MB Content-Type header", try post(tokenBody, headers: ["content-type": "application/" + huge]),
            .response(status: 415, code: "unsupported_media_type"))
        add("user-profile", "1 MB custom header (unknown user)", try event("v2", method: "GET", template: "get-user-me", token: token,
                                                                          headers: ["x-padding": huge]), .response(status: 404, code: "not_found"))

        let notUTF8: [UInt8] = [0xFF, 0xFE, 0xC0, 0x80]
        add("store-tokens", "bytes that are not UTF-8 in a header", try withBytes(notUTF8, in: try post(tokenBody, headers: ["x-note": "@@"])), invalid)
        add("user-profile", "bytes that are not UTF-8 in the Authorization header (v1)", try withBytes(
            notUTF8, in: try event("v1", method: "GET", template: "get-user-me", token: nil, headers: ["Authorization": "Bearer @@"])
        ), invalid)
        add("store-tokens", "bytes that are not UTF-8 in a text body", try withBytes(
            notUTF8, in: try post(Array(#"{"access_token":"@@"}"#.utf8), base64: false)
        ), invalid)
        add("store-tokens", "bytes that are not UTF-8 in a base64 body", try post(Array(#"{"access_token":"ya29."#.utf8) + notUTF8 + Array(#""}"#.utf8)), invalid)
        add("token-refresh", "bytes that are not UTF-8 in a scheduled event", try withBytes(notUTF8, in: Data(#"{"detail-type":"Scheduled Event","source":"aws.events","detail":{"note":"@@"}}"#.utf8)), .badEvent)
        add("store-tokens", "an escaped NUL in the Authorization header", try post(tokenBody, headers: ["authorization": "Bearer \u{0}" + token]), unauthorized)
        add("store-tokens", "event over the 6 MB Lambda limit", try post(tokenBody, headers: ["x-padding": String(repeating: "p", count: 7 * oneMiB)]), .badEvent)
        add("store-tokens", "empty input", Data(), .badEvent)
        return cases
    }

    /// Extra requests for the hygiene scan: every kind of credential an app could post.
    static func hygieneExtras() async throws -> [GeneratedEvent] {
        let token = try await bearerToken()
        let json = #"""
            {"access_token":"ya29.hygiene-access-json","refresh_token":"1//hygiene-refresh-json",\#
            "id_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJoeWdpZW5lIn0.aHlnaWVuZS1pZC10b2tlbi1zaWduYXR1cmU",\#
            "client_secret":"GOCSPX-hygiene-client-secret","expires_in":3600,\#
            "scope":["https://www.googleapis.com/auth/gmail.readonly"],"email":"hygiene@gmail.com"}
            """#
        let form = "access_token=ya29.hygiene-access-form&refresh_token=1%2F%2Fhygiene-refresh-form"
            + "&id_token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmb3JtIn0.Zm9ybS1pZC10b2tlbi1zaWduYXR1cmU"
            + "&client_secret=GOCSPX-hygiene-form-secret&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fgmail.readonly"
        return [
            GeneratedEvent(
                function: "store-tokens", name: "JSON body with id_token and client_secret",
                bytes: try event("v2", method: "POST", template: "post-gmail-tokens", token: token, body: Array(json.utf8), base64: true),
                expected: .response(status: 201, code: nil)
            ),
            GeneratedEvent(
                function: "store-tokens", name: "form body with id_token and client_secret",
                bytes: try event("v1", method: "POST", template: "post-gmail-tokens", token: token,
                                 headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8), base64: true),
                expected: .response(status: 201, code: nil)
            ),
            GeneratedEvent(
                function: "store-tokens", name: "JSON body with a bad field after the tokens",
                bytes: try event("v2", method: "POST", template: "post-gmail-tokens", token: token,
                                 body: Array(#"{"access_token":"ya29.hygiene-refused","refresh_token":"1//hygiene-refused","expires_in":"soon"}"#.utf8), base64: true),
                expected: .response(status: 400, code: "invalid_request")
            ),
        ]
    }

    /// A development-key JWT for user-1 valid for an hour from now.
    static func bearerToken() async throws -> String {
        let minter = try DevelopmentTokenMinter(settings: AuthSettings(key: Array(AuthSettings.developmentKey.utf8)))
        return try minter.mint(subject: "user-1", name: nil, email: nil, issuedAt: Date(), expiresAt: Date().addingTimeInterval(3600))
    }

    /// A SAM sample (`v1`/`v2` + template) with the method, headers and body set.
    static func event(
        _ version: String, method: String, template: String, token: String?, headers: [String: String] = [:],
        body: [UInt8]? = nil, base64: Bool = true
    ) throws -> Data {
        let url = ReplayManifest.eventsDirectory.appendingPathComponent("samples/\(version)-\(template).json")
        var event = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var fields = event["headers"] as? [String: Any] ?? [:]
        if let token { fields[version == "v1" ? "Authorization" : "authorization"] = "Bearer \(token)" }
        if body != nil, !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
            fields[version == "v1" ? "Content-Type" : "content-type"] = "application/json"
        }
        for (name, value) in headers { fields[name] = value }
        event["headers"] = fields
        if version == "v1" {
            event["httpMethod"] = method
            event["multiValueHeaders"] = fields.mapValues { [$0] }
        } else {
            var context = event["requestContext"] as! [String: Any]
            var http = context["http"] as! [String: Any]
            http["method"] = method
            context["http"] = http
            event["requestContext"] = context
        }
        if let body {
            event["body"] = base64 ? Data(body).base64EncodedString() : String(decoding: body, as: UTF8.self)
            event["isBase64Encoded"] = base64
        }
        return try JSONSerialization.data(withJSONObject: event)
    }

    /// `event` with every `@@` replaced by raw `bytes` (JSON cannot carry them otherwise).
    static func withBytes(_ bytes: [UInt8], in event: Data) throws -> Data {
        let marker = Array("@@".utf8)
        let input = Array(event)
        var output: [UInt8] = []
        var index = 0
        var replaced = false
        while index < input.count {
            if index + 1 < input.count, input[index] == marker[0], input[index + 1] == marker[1] {
                output += bytes
                index += 2
                replaced = true
            } else {
                output.append(input[index])
                index += 1
            }
        }
        guard replaced else { throw ReplayError("no @@ marker in the event") }
        return Data(output)
    }
}
