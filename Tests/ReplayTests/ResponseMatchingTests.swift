import Foundation
import PayPulseResponseMatching
import Testing

/// The expected-response rule the replay and the bundle proofs share.
@Suite("Matching a response with its expected file")
struct ResponseMatchingTests {
    private let expected = Data(#"{"statusCode": 201, "body": {"stored_at": "<rfc3339>", "id": "<any>", "ok": true}}"#.utf8)

    @Test("placeholders match any RFC 3339 time and any value; the body is compared as JSON")
    func placeholdersMatch() {
        let actual = #"{"statusCode":201,"body":"{\"ok\":true,\"id\":[1,2],\"stored_at\":\"2025-01-02T03:04:05Z\"}"}"#
        #expect(ResponseMatching.mismatch(expected: expected, actual: actual) == nil)
    }

    @Test("a different value, a time that is not RFC 3339, an extra key each fail")
    func differencesFail() {
        let answers = [
            #"{"statusCode":200,"body":"{\"ok\":true,\"id\":1,\"stored_at\":\"2025-01-02T03:04:05Z\"}"}"#,
            #"{"statusCode":201,"body":"{\"ok\":true,\"id\":1,\"stored_at\":\"yesterday\"}"}"#,
            #"{"statusCode":201,"body":"{\"ok\":true,\"id\":1,\"stored_at\":\"2025-01-02T03:04:05Z\",\"token\":\"x\"}"}"#,
        ]
        for answer in answers {
            #expect(ResponseMatching.mismatch(expected: expected, actual: answer) != nil, "\(answer)")
        }
    }

    @Test("an empty body (a 202 with none) matches only an expected empty body")
    func emptyBody() {
        let accepted = Data(#"{"statusCode": 202, "body": ""}"#.utf8)
        #expect(ResponseMatching.mismatch(expected: accepted, actual: #"{"statusCode":202,"body":""}"#) == nil)
        #expect(ResponseMatching.mismatch(expected: accepted, actual: #"{"statusCode":202,"body":"{}"}"#) != nil)
        #expect(ResponseMatching.mismatch(expected: expected, actual: #"{"statusCode":201,"body":""}"#) != nil)
    }

    @Test("a body that is not JSON, or an answer that is not one JSON object, is named")
    func unreadableAnswers() {
        #expect(ResponseMatching.mismatch(expected: expected, actual: #"{"statusCode":201,"body":"<html>"}"#)?.contains("not JSON") == true)
        #expect(ResponseMatching.mismatch(expected: expected, actual: "hello")?.contains("not one JSON object") == true)
    }
}
