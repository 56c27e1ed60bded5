import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("Event decoding errors")
struct DecodingErrorTests {
    @Test("input that is not JSON", arguments: ["", "not json", "{", #"{"version": "2.0""#, "\u{FEFF}\u{0}"])
    func notJSON(text: String) {
        #expect(decodingError(text.bytes) == .notJSON)
    }

    @Test(
        "JSON that is not an event",
        arguments: [
            "{}", "[]", "42", #""event""#, "null",
            #"{"hello": "world"}"#,
            #"{"version": "2.0", "rawPath": "/v1/user/me"}"#,
            #"{"version": "2.0", "requestContext": {"http": {"method": "GET"}}}"#,
            #"{"httpMethod": "GET"}"#,
            #"{"httpMethod": 1, "path": "/"}"#,
            #"{"detail-type": "Scheduled Event", "source": "aws.events"}"#,
            #"{"detail-type": 3, "source": "aws.events", "detail": {}}"#,
        ]
    )
    func notAnEvent(text: String) {
        guard case .notAnAPIGatewayEvent(let reason) = decodingError(text.bytes) else {
            Issue.record("\(text) was not refused as notAnAPIGatewayEvent")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test("messages are one clear line")
    func messages() {
        #expect(EventDecodingError.notJSON.description == "the event is not a JSON document")
        #expect(EventDecodingError.invalidBase64(.v1).description == "the request body is not valid base64")
        let message = decodingError("{}".bytes)?.description ?? ""
        #expect(message.hasPrefix("the event is not an API Gateway proxy event"))
        #expect(message.contains("httpMethod"))
        #expect(!message.contains("\n"))
    }
}
