import Foundation
import Hummingbird
import Logging
import NIOCore
import PayPulseEmbedded
import PayPulseFakeGoogle
import PayPulseHandlers
import PayPulsePorts

/// Every route of `paypulse serve`: the API (through the functions' handlers), the health
/// check, the OpenAPI document, the console and, with `--fake-google`, Google's stand-in.
/// Writes one access-log line per request: method, path, status and duration, never a
/// header, the query or the body.
struct LocalResponder: HTTPResponder {
    typealias Context = LocalRequestContext

    /// The API's routes: path, then method, then the function that answers.
    let api: [String: [String: GatewayBridge]]
    let fakeGoogle: FakeGoogleEndpoints?
    /// With `--fake-google`, its RISC transmitter's route (``FakeGoogleRISCEvents``).
    let riscEvents: FakeGoogleRISCEvents?
    /// With `--issuer`, the local issuer's discovery document and key set.
    let issuer: IssuerDocuments?
    let activity: ConsoleActivity
    let backends: (grants: any GrantStore, users: any UserDirectory, ledger: any SecurityEventLedger)
    /// The embedded store's lifecycle events, for the console; `nil` on AWS (the bus has them).
    let lifecycleEvents: EmbeddedLifecycleEvents?
    let storeDescription: String
    let googleDescription: String
    let deletionDateMeaning: ConsoleGrant.DeletionDateMeaning
    let consoleGuard: ConsoleGuard
    /// How long a request's body may take to arrive once its head has.
    let readTimeout: Duration
    let logger: Logger

    /// The local issuer's documents, encoded once: its keys do not change while it serves.
    struct IssuerDocuments: Sendable {
        let discovery: [UInt8]
        let keySet: [UInt8]

        init(_ issuer: LocalIssuer) throws {
            discovery = try issuer.discoveryDocument()
            keySet = try issuer.keySetDocument()
        }
    }

    /// Where the stand-in Google's endpoints are mounted.
    static let fakeGooglePrefix = "/fake-google"

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        if request.method == .head {
            // HEAD is GET without the body (RFC 9110 9.3.2): same status and headers.
            response = await route(request, method: "GET", context: context)
            let length = response.body.contentLength ?? 0
            response.body = ResponseBody()
            response.headers[.contentLength] = String(length)
        } else {
            response = await route(request, method: request.method.rawValue, context: context)
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method.rawValue) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", milliseconds)) ms")
        return response
    }

    /// The answer to `request` as if its method were `method`.
    private func route(_ request: Request, method: String, context: Context) async -> Response {
        let path = request.uri.path
        if let methods = api[path] {
            guard let bridge = methods[method] else {
                // The functions' own list, as API Gateway would pass their answer on.
                return GatewayBridge.response(.methodNotAllowed(allowed: methods.keys.sorted().joined(separator: ", ")))
            }
            let body: [UInt8]
            switch await readBody(of: request, context: context) {
            case .success(let bytes): body = bytes
            case .failure(let refusal): return refusal.response
            }
            let requestID = UUID().uuidString.lowercased()
            return await bridge.answer(request, method: method, body: body, requestID: requestID, sourceIP: "127.0.0.1", logger: logger)
        }
        if let fakeGoogle, path.hasPrefix(Self.fakeGooglePrefix + "/") {
            return await answerFakeGoogle(fakeGoogle, request, method: method, context: context)
        }
        if let issuer, let document = [LocalIssuer.discoveryPath: issuer.discovery, LocalIssuer.keySetPath: issuer.keySet][path] {
            guard method == "GET" else { return GatewayBridge.response(.methodNotAllowed(allowed: "GET, HEAD")) }
            // The keys stay for the server's life; the functions keep the set this long between fetches.
            return GatewayBridge.response(status: 200, headers: ["content-type": "application/json", "cache-control": "max-age=300"], body: document)
        }
        switch (method, path) {
        case ("GET", "/healthz"):
            return GatewayBridge.response(status: 200, headers: ["content-type": "application/json"], body: Array(#"{"status":"ok"}"#.utf8))
        case ("GET", "/openapi.yaml"):
            return GatewayBridge.response(status: 200, headers: ["content-type": "application/yaml"], body: Array(OpenAPIDocument.yaml.utf8))
        case ("GET", "/"):
            guard consoleGuard.allows(authority: request.head.authority) else { return Self.foreignHost }
            return await console()
        case ("POST", "/console/refresh"), ("POST", "/console/disconnect"):
            return await consoleAction(request, context: context)
        case (_, "/healthz"), (_, "/openapi.yaml"), (_, "/"):
            return GatewayBridge.response(.methodNotAllowed(allowed: "GET, HEAD"))
        default:
            return GatewayBridge.response(.notFound("No route for \(method) \(path)."))
        }
    }

    /// Why a body was not read, as the answer to give.
    enum BodyRefusal: Error {
        /// Over ``GatewayBridge/maximumBodyBytes``.
        case tooLarge
        /// Cut short, or framed wrongly (a malformed chunk).
        case unreadable
        /// Not all there within ``readTimeout``; the connection is closed after the answer.
        case tooSlow

        var response: Response {
            switch self {
            case .tooLarge: GatewayBridge.response(.payloadTooLarge(limit: APIRequest.maximumBodyBytes))
            case .unreadable:
                GatewayBridge.response(.invalidRequest("The request body could not be read: it ended before its announced length, or its chunked framing is malformed."))
            case .tooSlow:
                GatewayBridge.response(APIError(status: 408, code: "request_timeout", message: "The request body did not arrive in time."))
            }
        }
    }

    /// The body, read within ``readTimeout``; only a body over the limit is "too large".
    private func readBody(of request: Request, context: Context) async -> Result<[UInt8], BodyRefusal> {
        let limit = readTimeout
        return await withTaskGroup(of: Result<[UInt8], BodyRefusal>?.self) { group in
            group.addTask {
                var request = request
                do {
                    return .success(Array(try await request.collectBody(upTo: GatewayBridge.maximumBodyBytes).readableBytesView))
                } catch is NIOTooManyBytesError {
                    return .failure(.tooLarge)
                } catch {
                    return .failure(.unreadable)
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return Task.isCancelled ? nil : .failure(.tooSlow)
            }
            let first = await group.next() ?? nil
            if case .failure(.tooSlow) = first {
                // Stops the read (and the server's wait for the rest of the body): the
                // answer still goes out, then the connection closes.
                context.channel.close(mode: .input, promise: nil)
            }
            group.cancelAll()
            return first ?? .failure(.unreadable)
        }
    }

    // MARK: console

    /// The answer to a console request whose `Host` is not this server's.
    private static let foreignHost = GatewayBridge.response(APIError(
        status: 403, code: "forbidden",
        message: "The console answers only at the address it serves: 127.0.0.1, localhost or [::1] with its port, or the --host given."
    ))

    /// The answer to a console button pressed anywhere but on this server's console page.
    private static let notFromConsole = GatewayBridge.response(
        APIError(status: 403, code: "forbidden", message: "Console actions are taken from the console page only.")
    )

    private func console() async -> Response {
        let grants: [ConsoleGrant], events: [ConsoleEvent]?
        do {
            grants = try await ConsoleGrant.all(grants: backends.grants, users: backends.users, ledger: backends.ledger)
            if let lifecycleEvents { events = try await ConsoleEvent.recent(in: lifecycleEvents) } else { events = nil }
        } catch {
            logger.error("console: listing grants failed", metadata: ["reason": "\(error)"])
            return GatewayBridge.response(.upstreamUnavailable)
        }
        let nonce = ConsolePage.makeNonce()
        let page = ConsolePage(
            grants: grants, lastRefresh: await activity.lastRefresh, notice: await activity.takeNotice(),
            storeDescription: storeDescription, googleDescription: googleDescription, now: Date(),
            formToken: consoleGuard.formToken, styleNonce: nonce, deletionDateMeaning: deletionDateMeaning, events: events
        )
        // Referrer-Policy no-referrer would make Chrome send `Origin: null` with the forms.
        return GatewayBridge.response(
            status: 200,
            headers: [
                "content-type": "text/html; charset=utf-8", "cache-control": "no-store",
                "content-security-policy": ConsolePage.contentSecurityPolicy(styleNonce: nonce),
                "x-content-type-options": "nosniff", "referrer-policy": "same-origin",
            ],
            body: Array(page.html.utf8)
        )
    }

    /// A console button: run it, then back to the page (POST, redirect, GET).
    private func consoleAction(_ request: Request, context: Context) async -> Response {
        // A DNS-rebinding page sends its own name as Host (and as Origin, so comparing
        // the two proves nothing): only this server's own names are the console's.
        guard consoleGuard.allows(authority: request.head.authority) else { return Self.foreignHost }
        // Browsers send Origin with every form POST; another site's is refused at once.
        if let origin = request.headers[.origin], let host = request.head.authority, origin != "http://\(host)" {
            return Self.notFromConsole
        }
        let fields: [(key: String, value: String)]
        switch await readBody(of: request, context: context) {
        case .success(let bytes): fields = FormURLEncoding.fields(of: bytes) ?? []
        case .failure(let refusal): return refusal.response
        }
        // The page's token: a form on another page cannot know it.
        guard consoleGuard.accepts(token: fields.last(where: { $0.key == ConsoleGuard.tokenField })?.value) else {
            return Self.notFromConsole
        }
        if request.uri.path == "/console/refresh" {
            await activity.runRefresh()
        } else {
            guard let userID = fields.last(where: { $0.key == "user_id" })?.value, !userID.isEmpty else {
                return GatewayBridge.response(.invalidRequest("Send the form field user_id."))
            }
            _ = await activity.disconnect(userID: userID)
        }
        return GatewayBridge.response(status: 303, headers: ["location": "/"], body: [])
    }

    // MARK: Google's stand-in

    private static let crossSite = GatewayBridge.response(APIError(
        status: 403, code: "cross_site_request",
        message: "The stand-in Google's writes refuse what a web page can send: post JSON (Content-Type: application/json), from no other origin."
    ))

    private func answerFakeGoogle(_ google: FakeGoogleEndpoints, _ request: Request, method: String, context: Context) async -> Response {
        let below = String(request.uri.path.dropFirst(Self.fakeGooglePrefix.count))
        // The stand-in's writes (grants, revocations, pushed events) are for the functions,
        // tests and curl, never for a web page open on the developer's machine.
        if method != "GET" {
            let fetchSite = request.headers.first { $0.name.canonicalName.lowercased() == "sec-fetch-site" }?.value
            let takesJSON = below == "/grants" || below == FakeGoogleRISCEvents.path
            if consoleGuard.isCrossSite(
                origin: request.headers[.origin], fetchSite: fetchSite, mediaType: takesJSON ? MediaType(request.headers[.contentType]) : nil
            ) {
                return Self.crossSite
            }
        }
        let body: [UInt8]
        switch await readBody(of: request, context: context) {
        case .success(let bytes): body = bytes
        case .failure(let refusal): return refusal.response
        }
        if below == "/grants" {
            guard method == "POST" else { return GatewayBridge.response(.methodNotAllowed(allowed: "POST")) }
            guard let grants = try? FakeGoogleGrantSpec.list(fromJSON: Data(body)) else {
                return GatewayBridge.response(.invalidRequest("Send a grant or a JSON list of grants, each with refresh_token (and scope, sub, email)."))
            }
            grants.forEach(google.addGrant)
            return GatewayBridge.response(status: 201, headers: ["content-type": "application/json"], body: Array(#"{"added":\#(grants.count)}"#.utf8))
        }
        if below == FakeGoogleRISCEvents.path, let riscEvents {
            guard method == "POST" else { return GatewayBridge.response(.methodNotAllowed(allowed: "POST")) }
            switch await riscEvents.answer(body) {
            case .success(let answer): return GatewayBridge.response(status: 200, headers: ["content-type": "application/json"], body: answer)
            case .failure(let error): return GatewayBridge.response(error)
            }
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
        let target = below + (request.uri.query.map { "?" + $0 } ?? "")
        let answer = google.answer(method: method, target: target, headers: headers, body: body)
        return GatewayBridge.response(status: answer.status, headers: answer.headers, body: Array(answer.body.utf8))
    }
}

/// Hummingbird's basic request context and the request's connection, so that a body too
/// slow to arrive can have its connection's reading stopped.
struct LocalRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
