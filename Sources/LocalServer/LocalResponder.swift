import Foundation
import Hummingbird
import Logging
import PayPulseFakeGoogle
import PayPulseHandlers
import PayPulsePorts

/// Every route of `paypulse serve`: the API (through the functions' handlers), the health
/// check, the OpenAPI document, the console and, with `--fake-google`, Google's stand-in.
/// Writes one access-log line per request: method, path, status and duration, never a
/// header, the query or the body.
struct LocalResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    /// The API's routes: path, then method, then the function that answers.
    let api: [String: [String: GatewayBridge]]
    let fakeGoogle: FakeGoogleEndpoints?
    let activity: ConsoleActivity
    let backends: (grants: any GrantStore, users: any UserDirectory)
    let storeDescription: String
    let googleDescription: String
    let logger: Logger

    /// Where the stand-in Google's endpoints are mounted.
    static let fakeGooglePrefix = "/fake-google"

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let response = await route(request)
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method.rawValue) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", milliseconds)) ms")
        return response
    }

    private func route(_ request: Request) async -> Response {
        let path = request.uri.path
        let method = request.method.rawValue
        if let methods = api[path] {
            guard let bridge = methods[method] else {
                return GatewayBridge.response(.methodNotAllowed(allowed: methods.keys.sorted().joined(separator: ", ")))
            }
            guard let body = await Self.body(of: request) else {
                return GatewayBridge.response(.payloadTooLarge(limit: APIRequest.maximumBodyBytes))
            }
            let requestID = UUID().uuidString.lowercased()
            return await bridge.answer(request, body: body, requestID: requestID, sourceIP: "127.0.0.1", logger: logger)
        }
        if let fakeGoogle, path.hasPrefix(Self.fakeGooglePrefix + "/") {
            return await answerFakeGoogle(fakeGoogle, request)
        }
        switch (method, path) {
        case ("GET", "/healthz"):
            return GatewayBridge.response(status: 200, headers: ["content-type": "application/json"], body: Array(#"{"status":"ok"}"#.utf8))
        case ("GET", "/openapi.yaml"):
            return GatewayBridge.response(status: 200, headers: ["content-type": "application/yaml"], body: Array(OpenAPIDocument.yaml.utf8))
        case ("GET", "/"):
            return await console()
        case ("POST", "/console/refresh"), ("POST", "/console/disconnect"):
            return await consoleAction(request)
        case (_, "/healthz"), (_, "/openapi.yaml"), (_, "/"):
            return GatewayBridge.response(.methodNotAllowed(allowed: "GET"))
        default:
            return GatewayBridge.response(.notFound("No route for \(method) \(path)."))
        }
    }

    /// The body, or `nil` when it is over ``GatewayBridge/maximumBodyBytes``.
    private static func body(of request: Request) async -> [UInt8]? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: GatewayBridge.maximumBodyBytes) else { return nil }
        return Array(buffer.readableBytesView)
    }

    // MARK: console

    private func console() async -> Response {
        let grants: [ConsoleGrant]
        do {
            grants = try await ConsoleGrant.all(grants: backends.grants, users: backends.users)
        } catch {
            logger.error("console: listing grants failed", metadata: ["reason": "\(error)"])
            return GatewayBridge.response(.upstreamUnavailable)
        }
        let page = ConsolePage(
            grants: grants, lastRefresh: await activity.lastRefresh, notice: await activity.takeNotice(),
            storeDescription: storeDescription, googleDescription: googleDescription, now: Date()
        )
        return GatewayBridge.response(
            status: 200, headers: ["content-type": "text/html; charset=utf-8", "cache-control": "no-store"], body: Array(page.html.utf8)
        )
    }

    /// A console button: run it, then back to the page (POST, redirect, GET).
    private func consoleAction(_ request: Request) async -> Response {
        // A page on another site must not press these buttons (cross-site request forgery):
        // browsers send Origin with every form POST.
        if let origin = request.headers[.origin], let host = request.head.authority, origin != "http://\(host)" {
            return GatewayBridge.response(APIError(status: 403, code: "forbidden", message: "Console actions are taken from the console page only."))
        }
        if request.uri.path == "/console/refresh" {
            await activity.runRefresh()
        } else {
            guard let body = await Self.body(of: request),
                  let userID = FormURLEncoding.fields(of: body)?.last(where: { $0.key == "user_id" })?.value, !userID.isEmpty
            else { return GatewayBridge.response(.invalidRequest("Send the form field user_id.")) }
            _ = await activity.disconnect(userID: userID)
        }
        return GatewayBridge.response(status: 303, headers: ["location": "/"], body: [])
    }

    // MARK: Google's stand-in

    private func answerFakeGoogle(_ google: FakeGoogleEndpoints, _ request: Request) async -> Response {
        guard let body = await Self.body(of: request) else { return GatewayBridge.response(.payloadTooLarge(limit: GatewayBridge.maximumBodyBytes)) }
        let below = String(request.uri.path.dropFirst(Self.fakeGooglePrefix.count))
        if below == "/grants" {
            guard request.method == .post else { return GatewayBridge.response(.methodNotAllowed(allowed: "POST")) }
            guard let grants = try? FakeGoogleGrantSpec.list(fromJSON: Data(body)) else {
                return GatewayBridge.response(.invalidRequest("Send a grant or a JSON list of grants, each with refresh_token (and scope, sub, email)."))
            }
            grants.forEach(google.addGrant)
            return GatewayBridge.response(status: 201, headers: ["content-type": "application/json"], body: Array(#"{"added":\#(grants.count)}"#.utf8))
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
        let target = below + (request.uri.query.map { "?" + $0 } ?? "")
        let answer = google.answer(method: request.method.rawValue, target: target, headers: headers, body: body)
        return GatewayBridge.response(status: answer.status, headers: answer.headers, body: Array(answer.body.utf8))
    }
}
