#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulseTestSupport
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

/// Bodies over 64 KiB and bytes that are not UTF-8 are answered by the runtime, before
/// any handler runs and, for size, before the body is decoded.
@Suite("Request limits in the runtime")
struct RequestLimitTests {
    private static func post(_ version: PayloadVersion, body: String, base64: Bool) throws -> [String: JSONValue] {
        var event = try Samples.object(version == .v1 ? "v1-post-gmail-tokens.json" : "v2-post-gmail-tokens.json")
        event["body"] = .string(body)
        event["isBase64Encoded"] = .bool(base64)
        return event
    }

    private static func base64(count: Int) -> String {
        Data(repeating: UInt8(ascii: "a"), count: count).base64EncodedString()
    }

    @Test("a base64 body of exactly 64 KiB is decoded; one byte more is bodyTooLarge", arguments: PayloadVersion.allCases)
    func base64Boundary(version: PayloadVersion) throws {
        let limit = APIRequest.maximumBodyBytes
        #expect(try decodeHTTP(Self.post(version, body: Self.base64(count: limit), base64: true)).0.body.count == limit)
        for count in [limit + 1, limit + 2, limit + 3, 1 << 20] {
            #expect(decodingError(try Self.post(version, body: Self.base64(count: count), base64: true).bytes) == .bodyTooLarge(version), "\(count)")
        }
    }

    @Test("base64 text too long to fit is refused on its length, even when it is not base64")
    func lengthBeforeDecoding() throws {
        // Not base64 at all, but 4 MiB of it cannot decode to 64 KiB: the size is the answer.
        let junk = String(repeating: "!", count: 4 << 20)
        #expect(decodingError(try Self.post(.v2, body: junk, base64: true).bytes) == .bodyTooLarge(.v2))
        // Short junk is still invalid base64.
        #expect(decodingError(try Self.post(.v2, body: "!!!!", base64: true).bytes) == .invalidBase64(.v2))
    }

    @Test("a text body over 64 KiB is bodyTooLarge; at 64 KiB it passes", arguments: PayloadVersion.allCases)
    func textBoundary(version: PayloadVersion) throws {
        let limit = APIRequest.maximumBodyBytes
        #expect(try decodeHTTP(Self.post(version, body: String(repeating: "b", count: limit), base64: false)).0.body.count == limit)
        #expect(decodingError(try Self.post(version, body: String(repeating: "b", count: limit + 1), base64: false).bytes) == .bodyTooLarge(version))
        // Multi-byte characters count in bytes, not characters.
        #expect(decodingError(try Self.post(version, body: String(repeating: "é", count: limit / 2 + 1), base64: false).bytes) == .bodyTooLarge(version))
    }

    @Test("bytes that are not UTF-8 in an HTTP event are invalidUTF8 with its payload version", arguments: PayloadVersion.allCases)
    func invalidUTF8(version: PayloadVersion) throws {
        var event = try Self.post(version, body: "{}", base64: false)
        event.set("headers.x-note", .string("@@"))
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            let bytes = event.bytes.replacing(Array("@@".utf8), with: bad)
            #expect(decodingError(bytes) == .invalidUTF8(version))
        }
    }

    @Test("bytes that are not UTF-8 in anything else stay notJSON")
    func invalidUTF8NotHTTP() throws {
        #expect(decodingError(Array(#"{"detail-type":"Scheduled Event","source":"aws.events","detail":{"a":""#.utf8) + [0xFF] + Array(#""}}"#.utf8)) == .notJSON)
        #expect(decodingError([0xFF, 0xFE]) == .notJSON)
        #expect(decodingError(Array(#"{"hello":""#.utf8) + [0xFF] + Array(#""}"#.utf8)) == .notJSON)
    }

    @Test("the runtime answers 413 and 400 itself; the handler never runs", arguments: PayloadVersion.allCases)
    func answered(version: PayloadVersion) async throws {
        let seen = Seen()
        let handlers = EventHandlers(http: StdinRunnerTests.echo(seen))
        let large = try Self.post(version, body: Self.base64(count: 1 << 20), base64: true)
        let tooLarge = await handlers.handle(large.bytes, context: InvocationContext(logger: LogCapture().logger))
        let expected413 = APIResponse.error(status: 413, code: "payload_too_large", message: "The request body is larger than 64 KiB.")
        #expect(tooLarge == .response(expected413.encoded(for: version)))

        var event = try Self.post(version, body: "{}", base64: false)
        event.set("headers.x-note", .string("@@"))
        let notUTF8 = await handlers.handle(event.bytes.replacing(Array("@@".utf8), with: [0xFF]), context: InvocationContext(logger: LogCapture().logger))
        let expected400 = APIResponse.error(status: 400, code: "invalid_request", message: "The request is not valid UTF-8.")
        #expect(notUTF8 == .response(expected400.encoded(for: version)))
        #expect(await seen.requests.isEmpty)
    }
}
