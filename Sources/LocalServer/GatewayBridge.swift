import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulseHandlers
import PayPulseRuntime

/// What API Gateway does between a client and a function, done locally: an HTTP request
/// becomes an HTTP API (payload 2.0) event, the function's handlers answer it exactly as
/// in Lambda, and the proxy response becomes the HTTP response. With an `authorizer`
/// (`PAYPULSE_AUTH_MODE=apigateway`) it plays the route's JWT authorizer too: the bearer
/// token is verified under the issuer's keys before the function runs, which then reads the
/// claims from `requestContext.authorizer.jwt.claims`; a token refused is API Gateway's
/// 401 `{"message":"Unauthorized"}`, and the function never runs.
struct GatewayBridge: Sendable {
    /// The largest body passed on. API Gateway's own limit is 10 MB; the handlers refuse
    /// anything over 64 KiB themselves, so a larger one is refused here with their error.
    static let maximumBodyBytes = 1 << 20

    let handlers: EventHandlers
    var authorizer: Authenticator?

    /// Answers `request` (its body already read) through the handlers, as a `method`
    /// request (GET for a HEAD).
    func answer(_ request: Request, method: String, body: [UInt8], requestID: String, sourceIP: String, logger: Logger) async -> Response {
        var event = SampleHTTPEvent(
            method: method, path: request.uri.path, rawQueryString: request.uri.query ?? "",
            headers: request.headers.filter { $0.name != .cookie }.map { ($0.name.canonicalName, $0.value) }, body: body,
            requestID: requestID, sourceIP: sourceIP
        )
        if let authorizer {
            do {
                let user = try await authorizer.authenticate(authorizationHeader: request.headers[.authorization], authorizerClaims: nil, now: Date())
                event.authorize(claims: ["sub": user.userID.rawValue].merging([("name", user.name), ("email", user.email)].compactMap { name, value in
                    value.map { (name, $0) }
                }) { first, _ in first })
            } catch {
                logger.notice("the JWT authorizer refused the request", metadata: ["reason": "\(error.reason)"])
                if error.isUnavailable { return Self.response(.signInKeysUnavailable) }
                return Self.response(status: 401, headers: ["content-type": "application/json"], body: Array(#"{"message":"Unauthorized"}"#.utf8))
            }
        }
        let context = InvocationContext(requestID: requestID, logger: logger)
        guard let bytes = try? event.encoded() else { return Self.response(.internalError) }
        switch await handlers.handle(bytes, context: context) {
        case .response(let answer):
            guard let proxy = try? JSONDecoder().decode(ProxyResponse.self, from: Data(answer)) else { return Self.response(.internalError) }
            return proxy.response
        case .rejected, .failed:
            return Self.response(.internalError)
        }
    }

    /// The HTTP response for an error the handlers would give.
    static func response(_ error: APIError) -> Response {
        let api = error.response
        return response(status: api.status, headers: api.headers, body: Array(api.body.utf8))
    }

    /// An HTTP response from parts; header names the HTTP types reject are dropped.
    static func response(status: Int, headers: [String: String], body: [UInt8]) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The Lambda proxy integration's answer (both payload versions).
    private struct ProxyResponse: Decodable {
        var statusCode: Int
        var headers: [String: String]?
        var body: String?
        var isBase64Encoded: Bool?

        var response: Response {
            let text = body ?? ""
            let bytes = isBase64Encoded == true ? Data(base64Encoded: text).map { Array($0) } ?? [] : Array(text.utf8)
            return GatewayBridge.response(status: statusCode, headers: headers ?? [:], body: bytes)
        }
    }
}
