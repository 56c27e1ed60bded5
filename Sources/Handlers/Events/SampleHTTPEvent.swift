#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding

/// An API Gateway HTTP API (payload 2.0) event shaped as `sam local generate-event
/// apigateway http-api-proxy` makes it, for tools that drive the functions in process
/// (`paypulse demo`, `make capacity`, and `paypulse serve` for each request it receives).
package struct SampleHTTPEvent: Encodable, Sendable {
    struct HTTP: Encodable, Sendable {
        var method: String
        var path: String
        var `protocol` = "HTTP/1.1"
        var sourceIp = "192.0.2.1"
        var userAgent = "PayPulse/1.0 (iOS)"
    }

    struct RequestContext: Encodable, Sendable {
        var accountId = "123456789012"
        var apiId = "api-id"
        var domainName = "id.execute-api.us-east-1.amazonaws.com"
        var domainPrefix = "id"
        var http: HTTP
        var requestId = "demo-request"
        var routeKey = "$default"
        var stage = "$default"
        var time = "12/Mar/2020:19:03:58 +0000"
        var timeEpoch = 1_583_348_638_390
        /// What API Gateway's JWT authorizer verified, when a route has one.
        var authorizer: Authorizer?
    }

    /// `requestContext.authorizer` of payload 2.0: `{"jwt": {"claims": {...}, "scopes": null}}`.
    struct Authorizer: Encodable, Sendable {
        struct JWT: Encodable, Sendable {
            var claims: [String: String]
        }

        var jwt: JWT
    }

    var version = "2.0"
    var routeKey = "$default"
    /// The path.
    package private(set) var rawPath: String
    var rawQueryString = ""
    var headers: [String: String]
    var requestContext: RequestContext
    var body: String
    var isBase64Encoded = true

    /// An event for `method` `path` with a bearer token and an optional JSON body.
    package init(method: String, path: String, bearer: String, jsonBody: String?) {
        rawPath = path
        var headers = ["authorization": "Bearer \(bearer)", "user-agent": "PayPulse/1.0 (iOS)"]
        if jsonBody != nil { headers["content-type"] = "application/json" }
        self.headers = headers
        requestContext = RequestContext(http: HTTP(method: method, path: path))
        body = Data((jsonBody ?? "").utf8).base64EncodedString()
    }

    /// An event for a request received over HTTP, as API Gateway would pass it on: header
    /// names lowercased, repeated fields joined with commas, the body base64-encoded.
    /// - Parameters:
    ///   - method: The request method.
    ///   - path: The path, without the query.
    ///   - rawQueryString: The query, without `?`.
    ///   - headers: The header fields in arrival order (a name may repeat).
    ///   - body: The body bytes.
    ///   - requestID: The id the platform gave the request.
    ///   - sourceIP: The peer's address.
    package init(
        method: String, path: String, rawQueryString: String, headers: [(name: String, value: String)], body: [UInt8], requestID: String,
        sourceIP: String
    ) {
        rawPath = path
        self.rawQueryString = rawQueryString
        var joined: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            joined[key] = joined[key].map { "\($0),\(value)" } ?? value
        }
        self.headers = joined
        requestContext = RequestContext(
            http: HTTP(method: method, path: path, sourceIp: sourceIP, userAgent: joined["user-agent"] ?? ""), requestId: requestID
        )
        self.body = Data(body).base64EncodedString()
    }

    /// The method, for messages.
    package var method: String { requestContext.http.method }

    /// Passes `claims` as API Gateway's JWT authorizer does once it verified the token.
    package mutating func authorize(claims: [String: String]) {
        requestContext.authorizer = Authorizer(jwt: Authorizer.JWT(claims: claims))
    }

    /// The event as JSON bytes.
    package func encoded() throws -> [UInt8] {
        try JSONCoding.encode(self)
    }
}
