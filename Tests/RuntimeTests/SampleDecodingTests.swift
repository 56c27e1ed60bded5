import PayPulseCoding
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("SAM samples decode")
struct SampleDecodingTests {
    @Test(
        "every generated API Gateway sample gives its method, path and version",
        arguments: [
            ("v2-post-gmail-tokens.json", "POST", "/v1/auth/gmail-tokens", PayloadVersion.v2),
            ("v2-get-user-me.json", "GET", "/v1/user/me", .v2),
            ("v2-delete-gmail-tokens.json", "DELETE", "/v1/auth/gmail-tokens", .v2),
            ("v1-post-gmail-tokens.json", "POST", "/v1/auth/gmail-tokens", .v1),
            ("v1-get-user-me.json", "GET", "/v1/user/me", .v1),
            ("v1-delete-gmail-tokens.json", "DELETE", "/v1/auth/gmail-tokens", .v1),
        ]
    )
    func methodAndPath(file: String, method: String, path: String, version: PayloadVersion) throws {
        guard case .http(let request, let decodedVersion) = try IncomingEvent.decode(Samples.bytes(file)) else {
            Issue.record("\(file) did not decode as HTTP")
            return
        }
        #expect(request.method == method)
        #expect(request.path == path)
        #expect(decodedVersion == version)
        #expect(request.body == "{}".bytes, "the sample body e30= is base64 for {}")
    }

    @Test("payload 2.0: capitalised headers, cookies, repeated query keys, JWT claims")
    func payloadV2() throws {
        guard case .http(let request, _) = try IncomingEvent.decode(Samples.bytes("v2-post-gmail-tokens.json")) else {
            Issue.record("not HTTP")
            return
        }
        #expect(request.headers["header1"] == "value1")
        #expect(request.headers["HEADER1"] == "value1")
        #expect(request.headers["Header2"] == "value1,value2")
        #expect(request.headers["cookie"] == "cookie1; cookie2")
        // queryStringParameters says "value1,value2"; rawQueryString shows two values.
        #expect(request.query == ["parameter1": "value2", "parameter2": "value"])
        #expect(request.authorizerClaims == ["claim1": "value1", "claim2": "value2"])
    }

    @Test("payload 1.0: headers from both maps, query, no authorizer")
    func payloadV1() throws {
        guard case .http(let request, _) = try IncomingEvent.decode(Samples.bytes("v1-get-user-me.json")) else {
            Issue.record("not HTTP")
            return
        }
        #expect(request.headers["user-agent"] == "Custom User Agent String")
        #expect(request.headers["X-FORWARDED-FOR"] == "127.0.0.1, 127.0.0.2")
        // The two maps disagree on Host; multiValueHeaders wins.
        #expect(request.headers["host"] == "0123456789.execute-api.us-east-1.amazonaws.com")
        #expect(request.query == ["foo": "bar"])
        #expect(request.authorizerClaims == nil)
    }

    @Test("the scheduled sample is an EventBridge event with its detail kept as JSON")
    func scheduled() throws {
        guard case .scheduled(let event) = try IncomingEvent.decode(Samples.bytes("scheduled-event.json")) else {
            Issue.record("not scheduled")
            return
        }
        #expect(event.detailType == "Scheduled Event")
        #expect(event.source == "aws.events")
        #expect(event.id == "cdc73f9d-aea9-11e3-9d5a-835b769c0d9c")
        #expect(event.time == "1970-01-01T00:00:00Z")
        #expect(event.resources == ["arn:aws:events:us-east-1:123456789012:rule/ExampleRule"])
        #expect(event.detail == "{}".bytes)
    }

    @Test("a scheduled detail is available raw and decodable")
    func scheduledDetail() throws {
        struct Shard: Decodable, Equatable {
            var shard: Int
            var shards: Int
        }
        var object = try Samples.object("scheduled-event.json")
        object["detail"] = .object(["shards": .integer(4), "shard": .integer(1)])
        guard case .scheduled(let event) = try IncomingEvent.decode(object.bytes) else {
            Issue.record("not scheduled")
            return
        }
        #expect(event.detail == #"{"shard":1,"shards":4}"#.bytes)
        #expect(try event.decodeDetail(as: Shard.self) == Shard(shard: 1, shards: 4))
    }
}
