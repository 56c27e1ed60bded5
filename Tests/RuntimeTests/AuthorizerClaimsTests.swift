import PayPulseCoding
import Testing

@testable import PayPulseHandlers
@testable import PayPulseRuntime

@Suite("Authorizer claims")
struct AuthorizerClaimsTests {
    @Test("payload 2.0 JWT claims: numbers, booleans, arrays and objects become strings; null is dropped")
    func jwtClaims() throws {
        var event = try Samples.object("v2-post-gmail-tokens.json")
        event.set(
            "requestContext.authorizer.jwt.claims",
            .object([
                "sub": .string("user-123"),
                "exp": .integer(1_700_000_000),
                "ratio": .number(1.5),
                "email_verified": .bool(true),
                "aud": .array([.string("ios-app"), .string("web")]),
                "cognito:groups": .array([]),
                "address": .object(["country": .string("NL"), "city": .string("Delft")]),
                "middle_name": .null,
            ])
        )
        let (request, _) = try decodeHTTP(event)
        #expect(
            request.authorizerClaims == [
                "sub": "user-123",
                "exp": "1700000000",
                "ratio": "1.5",
                "email_verified": "true",
                "aud": #"["ios-app","web"]"#,
                "cognito:groups": "[]",
                "address": #"{"city":"Delft","country":"NL"}"#,
            ]
        )
    }

    @Test("payload 2.0 claims as real HTTP APIs send them (all strings) pass through untouched")
    func realHTTPAPIClaims() throws {
        var event = try Samples.object("v2-get-user-me.json")
        event.set("requestContext.authorizer.jwt.claims", .object(["aud": .string("[a b]"), "exp": .string("1700000000")]))
        let (request, _) = try decodeHTTP(event)
        #expect(request.authorizerClaims == ["aud": "[a b]", "exp": "1700000000"])
    }

    @Test("payload 2.0 Lambda authorizer context")
    func lambdaContextV2() throws {
        var event = try Samples.object("v2-get-user-me.json")
        event.set("requestContext.authorizer", .object(["lambda": .object(["userId": .string("u1"), "tier": .integer(2)])]))
        let (request, _) = try decodeHTTP(event)
        #expect(request.authorizerClaims == ["userId": "u1", "tier": "2"])
    }

    @Test("payload 1.0 Cognito user pool claims")
    func cognitoV1() throws {
        var event = try Samples.object("v1-get-user-me.json")
        event.set(
            "requestContext.authorizer",
            .object([
                "claims": .object([
                    "sub": .string("7d8f-user"), "email": .string("a@example.com"), "email_verified": .string("true"),
                    "auth_time": .string("1700000000"),
                ])
            ])
        )
        let (request, _) = try decodeHTTP(event)
        #expect(
            request.authorizerClaims == [
                "sub": "7d8f-user", "email": "a@example.com", "email_verified": "true", "auth_time": "1700000000",
            ]
        )
    }

    @Test("payload 1.0 Lambda authorizer: principalId and context, without integrationLatency")
    func lambdaContextV1() throws {
        var event = try Samples.object("v1-get-user-me.json")
        event.set(
            "requestContext.authorizer",
            .object(["principalId": .string("user-9"), "integrationLatency": .integer(12), "plan": .string("pro")])
        )
        let (request, _) = try decodeHTTP(event)
        #expect(request.authorizerClaims == ["principalId": "user-9", "plan": "pro"])
    }

    @Test("an empty authorizer is no authorizer")
    func emptyAuthorizer() throws {
        var event = try Samples.object("v1-get-user-me.json")
        event.set("requestContext.authorizer", .object([:]))
        #expect(try decodeHTTP(event).0.authorizerClaims == nil)
    }
}
