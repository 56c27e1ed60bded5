#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("Response encoding")
struct ResponseEncodingTests {
    struct Decoded: Decodable, Equatable {
        var statusCode: Int
        var headers: [String: String]
        var multiValueHeaders: [String: [String]]?
        var body: String
        var isBase64Encoded: Bool
    }

    @Test("payload 2.0: exact bytes with sorted keys, content-type always present")
    func v2Bytes() {
        let response = APIResponse(status: 201, headers: ["x-request-id": "r/1"], body: #"{"ok":true}"#)
        let text = String(decoding: response.encoded(for: .v2), as: UTF8.self)
        #expect(
            text
                == #"{"body":"{\"ok\":true}","headers":{"content-type":"application/json","x-request-id":"r/1"},"isBase64Encoded":false,"statusCode":201}"#
        )
    }

    @Test("payload 1.0 adds multiValueHeaders mirroring headers; an empty body has no content type")
    func v1Bytes() {
        let text = String(decoding: APIResponse(status: 200, body: "{}").encoded(for: .v1), as: UTF8.self)
        #expect(
            text
                == #"{"body":"{}","headers":{"content-type":"application/json"},"isBase64Encoded":false,"multiValueHeaders":{"content-type":["application/json"]},"statusCode":200}"#
        )
        let empty = String(decoding: APIResponse(status: 202, body: "").encoded(for: .v1), as: UTF8.self)
        #expect(empty == #"{"body":"","headers":{},"isBase64Encoded":false,"multiValueHeaders":{},"statusCode":202}"#)
    }

    @Test("round trip for both versions", arguments: PayloadVersion.allCases)
    func roundTrip(version: PayloadVersion) throws {
        let response = APIResponse.error(status: 400, code: "invalid_request", message: "a \"quoted\"\nmessage / é")
        let decoded = try JSONDecoder().decode(Decoded.self, from: Data(response.encoded(for: version)))
        #expect(decoded.statusCode == 400)
        #expect(decoded.headers == response.headers)
        #expect(decoded.body == response.body)
        #expect(decoded.isBase64Encoded == false)
        #expect(decoded.multiValueHeaders == (version == .v1 ? ["content-type": ["application/json"]] : nil))
    }

    @Test("encoding is deterministic")
    func deterministic() {
        let headers = Dictionary(uniqueKeysWithValues: (0..<20).map { ("x-h\($0)", "\($0)") })
        let response = APIResponse(status: 200, headers: headers, body: "{}")
        #expect(Set((0..<10).map { _ in response.encoded(for: .v1) }).count == 1)
    }
}
