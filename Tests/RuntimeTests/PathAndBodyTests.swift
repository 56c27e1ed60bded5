import PayPulseCoding
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("Paths and bodies")
struct PathAndBodyTests {
    @Test("payload 2.0 on a named stage: the /{stage} prefix is removed once")
    func namedStage() throws {
        var event = try Samples.object("v2-get-user-me.json")
        event.set("requestContext.stage", .string("prod"))
        event.set("rawPath", .string("/prod/v1/user/me"))
        event.set("requestContext.http.path", .string("/prod/v1/user/me"))
        #expect(try decodeHTTP(event).0.path == "/v1/user/me")

        // A stage named like the first route segment is removed only once.
        event.set("requestContext.stage", .string("v1"))
        event.set("requestContext.http.path", .string("/v1/v1/user/me"))
        #expect(try decodeHTTP(event).0.path == "/v1/user/me")
    }

    @Test("payload 2.0 without requestContext.http.path falls back to rawPath")
    func rawPathFallback() throws {
        var event = try Samples.object("v2-get-user-me.json")
        event.set("requestContext.http", .object(["method": .string("get")]))
        event.set("requestContext.stage", .string("prod"))
        event.set("rawPath", .string("/prod/v1/user/me"))
        let (request, _) = try decodeHTTP(event)
        #expect(request.path == "/v1/user/me")
        #expect(request.method == "GET")
    }

    @Test(
        "stage stripping matches whole segments and ignores $default",
        arguments: [
            ("/prod/v1/user/me", "prod", "/v1/user/me"),
            ("/prod", "prod", "/"),
            ("/production/v1", "prod", "/production/v1"),
            ("/v1/user/me", "$default", "/v1/user/me"),
            ("/v1/user/me", "", "/v1/user/me"),
            ("/v1/user/me", "v", "/v1/user/me"),
        ]
    )
    func stagePrefix(path: String, stage: String, expected: String) {
        #expect(StagePrefix.strip(path, stage: stage) == expected)
    }

    @Test("payload 1.0 paths are used as sent: the stage is only in requestContext.path")
    func v1PathKeepsStageNamedSegments() throws {
        var event = try Samples.object("v1-get-user-me.json")
        event.set("requestContext.stage", .string("v1"))
        event.set("requestContext.path", .string("/v1/v1/user/me"))
        #expect(try decodeHTTP(event).0.path == "/v1/user/me")
    }

    @Test("a body not marked base64 is taken as UTF-8 text; a null body is empty")
    func plainBodies() throws {
        var event = try Samples.object("v2-post-gmail-tokens.json")
        event["isBase64Encoded"] = .bool(false)
        event["body"] = .string("access_token=ya29.x&scope=a+b")
        #expect(try decodeHTTP(event).0.body == "access_token=ya29.x&scope=a+b".bytes)
        event["body"] = .null
        #expect(try decodeHTTP(event).0.body.isEmpty)
        var v1 = try Samples.object("v1-post-gmail-tokens.json")
        v1["body"] = .string("")
        #expect(try decodeHTTP(v1).0.body.isEmpty)
    }

    @Test("a base64 body with UTF-8 JSON is decoded byte for byte")
    func base64Body() throws {
        var event = try Samples.object("v1-post-gmail-tokens.json")
        // {"access_token":"ya29.é"}
        event["body"] = .string("eyJhY2Nlc3NfdG9rZW4iOiJ5YTI5LsOpIn0=")
        #expect(try decodeHTTP(event).0.body == #"{"access_token":"ya29.é"}"#.bytes)
    }

    @Test(
        "a body marked base64 that is not base64 is a distinguishable error carrying the payload version",
        arguments: [("v2-post-gmail-tokens.json", PayloadVersion.v2), ("v1-post-gmail-tokens.json", .v1)]
    )
    func invalidBase64(file: String, version: PayloadVersion) throws {
        for junk in ["not base64!", "e30", "e3=0", "ZXhhbXBsZQ==="] {
            var event = try Samples.object(file)
            event["body"] = .string(junk)
            #expect(decodingError(event.bytes) == .invalidBase64(version), "\(junk)")
        }
    }

    @Test("payload 1.0 headers and query: null maps and multi-value lists")
    func v1Maps() throws {
        var event = try Samples.object("v1-get-user-me.json")
        event["headers"] = .null
        event["multiValueHeaders"] = .object(["Accept": .array([.string("a"), .string("b")])])
        event["queryStringParameters"] = .object(["x": .string("2"), "y": .string("only")])
        event["multiValueQueryStringParameters"] = .object(["x": .array([.string("1"), .string("2")])])
        let (request, _) = try decodeHTTP(event)
        #expect(request.headers.all == ["accept": "a,b"])
        #expect(request.query == ["x": "2", "y": "only"])
    }

    @Test("raw query values are percent-decoded when a repeated key needs them")
    func repeatedQueryKeys() throws {
        var event = try Samples.object("v2-get-user-me.json")
        event["rawQueryString"] = .string("a=1&a=x%20y%2Cz&b=%E2%82%AC&c&bad=%zz")
        event["queryStringParameters"] = .object(["a": .string("1,x y,z"), "b": .string("€")])
        let (request, _) = try decodeHTTP(event)
        #expect(request.query == ["a": "x y,z", "b": "€", "c": "", "bad": "%zz"])
    }
}
