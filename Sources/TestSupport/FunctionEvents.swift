import Foundation

/// The events the suites pipe into the built functions: API Gateway HTTP API (payload 2.0)
/// requests carrying a user's JWT or Google's security event token, and EventBridge
/// scheduled events.
package enum FunctionEvents {
    /// `POST /v1/auth/gmail-tokens` with `body` as the app's JSON.
    package static func storeTokens(_ body: [String: Any], jwt: String) -> Data {
        api(method: "POST", path: "/v1/auth/gmail-tokens", jwt: jwt, body: body)
    }

    /// `DELETE /v1/auth/gmail-tokens`.
    package static func disconnect(jwt: String) -> Data { api(method: "DELETE", path: "/v1/auth/gmail-tokens", jwt: jwt, body: nil) }

    /// `GET /v1/user/me`.
    package static func userProfile(jwt: String) -> Data { api(method: "GET", path: "/v1/user/me", jwt: jwt, body: nil) }

    /// A scheduled event for everyone (`shards` 1) or for shard `index` of `shards`.
    package static func tokenRefresh(shard index: Int = 0, of shards: Int = 1) -> Data {
        let detail: [String: Any] = shards == 1 ? [:] : ["shard": index, "shards": shards]
        return json([
            "id": UUID().uuidString.lowercased(), "detail-type": "Scheduled Event", "source": "aws.events",
            "account": "123456789012", "time": "2026-11-22T00:00:00Z", "region": "us-east-1", "resources": [], "detail": detail,
        ])
    }

    /// `POST /v1/google/security-events` as Google pushes it: the token as the body, no
    /// Authorization.
    package static func securityEvent(token: String) -> Data {
        api(method: "POST", path: "/v1/google/security-events", jwt: nil, body: nil, raw: (token, "application/secevent+jwt"))
    }

    private static func api(method: String, path: String, jwt: String?, body: [String: Any]?, raw: (String, String)? = nil) -> Data {
        var headers = jwt.map { ["authorization": "Bearer \($0)"] } ?? [:]
        var event: [String: Any] = [
            "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
            "requestContext": [
                "accountId": "123456789012", "apiId": "suite", "requestId": UUID().uuidString.lowercased(), "stage": "$default",
                "http": ["method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "suite"],
            ] as [String: Any],
            "isBase64Encoded": false,
        ]
        if let body {
            headers["content-type"] = "application/json"
            event["body"] = String(decoding: json(body), as: UTF8.self)
        }
        if let (text, type) = raw {
            headers["content-type"] = type
            event["body"] = text
        }
        event["headers"] = headers
        return json(event)
    }

    private static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
