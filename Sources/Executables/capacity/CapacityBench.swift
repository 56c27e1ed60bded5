import Foundation
import Logging
import PayPulseApp
import PayPulseAWS
import PayPulseCoding
import PayPulseDomain
import PayPulseFakeGoogle
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime
import PayPulseTestSupport

/// The functions as deployed (the same `Assembly` and handlers), on a moto_server of their
/// own behind a counting proxy, with the fake Google: each operation's AWS calls are
/// counted on the wire, so the model below rests on what the code really does.
struct CapacityBench {
    let moto: MotoServer
    let proxy: FaultProxy
    let google: FakeGoogleServer
    let minter: DevelopmentTokenMinter
    let logger = Logger(label: "capacity") { _ in SwiftLogNoOpLogHandler() }

    static let jwtKey = "capacity-model-jwt-key-0123456789abcdef"

    init() async throws {
        moto = try await MotoServer.launchPrivate()
        google = try FakeGoogleServer()
        proxy = try FaultProxy(upstream: moto.endpoint, dialect: .aws)
        minter = try DevelopmentTokenMinter(settings: AuthSettings(key: Array(Self.jwtKey.utf8)))
        let secrets = AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: moto.endpoint))
        _ = try await secrets.createSecret(
            name: "Google-OAuth-Client-ID", value: google.clientID, tags: [:], clientRequestToken: UUID().uuidString.lowercased()
        )
        let users = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: moto.endpoint), table: "paypulse-users")
        try await users.createTableIfNeeded()
        // store-tokens counts each post in the request quotas table, as `paypulse setup` creates it.
        try await DynamoDBRequestQuota(client: try AWSTestClients.dynamoDB(endpoint: moto.endpoint), table: "paypulse-request-quotas", rule: QuotaRule(limit: 10))
            .createTableIfNeeded()
        // Google's word on each account, read after every write of a usable grant and by
        // fresh-token, lives in the security events' table, as `paypulse setup` creates it.
        try await DynamoDBSecurityEventLedger(client: try AWSTestClients.dynamoDB(endpoint: moto.endpoint), table: "paypulse-security-events")
            .createTableIfNeeded()
    }

    /// The configuration a function gets: through the counting proxy, with `extra` variables.
    func configuration(_ extra: [String: String] = [:], endpoint: String? = nil) throws -> AppConfiguration {
        let environment = [
            "PAYPULSE_STORE": "aws", "AWS_REGION": AWSTestClients.region, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_ENDPOINT_URL": endpoint ?? proxy.url, "GOOGLE_TOKEN_ENDPOINT": google.tokenEndpoint, "GOOGLE_REVOKE_ENDPOINT": google.revokeEndpoint,
            "PAYPULSE_JWT_SECRET": Self.jwtKey, "REFRESH_MAX_WRITES_PER_SECOND": "10000",
        ].merging(extra) { $1 }
        return try AppConfiguration.fromEnvironment(environment)
    }

    /// One function as its executable builds it, with `extra` variables.
    func handlers(_ name: HandlerName, _ extra: [String: String] = [:]) async throws -> EventHandlers {
        try await Assembly.build(configuration: try configuration(extra), logger: logger).eventHandlers(for: name, metrics: DiscardedMetrics())
    }

    /// The calls `body` made, and (on a store whose grants are items) the items of `users`
    /// before and after it, read around the proxy so the reads are not counted.
    func count(_ name: String, users: [String] = [], on store: MeasuredStore, _ body: () async throws -> Void) async throws -> OperationCalls {
        let before = try await store.items(users)
        proxy.plan.reset()
        try await body()
        let calls = proxy.plan.operationCounts
        let after = try await store.items(users)
        return OperationCalls(name: name, calls: calls, items: zip(before, after).map { ItemChange(before: $0, after: $1) })
    }

    /// Sends an API Gateway 2.0 request and insists on `status`.
    func request(_ handlers: EventHandlers, _ method: String, user: String, body: String? = nil, expect status: Int) async throws {
        let jwt = try minter.mint(subject: user, name: nil, email: nil, issuedAt: Date(), expiresAt: Date().addingTimeInterval(600))
        let event = SampleHTTPEvent(method: method, path: Self.path(method), bearer: jwt, jsonBody: body)
        try await expect(handlers, try event.encoded(), status: status)
    }

    /// Connects `user` with a refresh token the fake Google knows, whose access tokens live
    /// `expiresIn` seconds.
    func connect(_ handlers: EventHandlers, user: String, expiresIn: Int = 3599) async throws {
        let refreshToken = "1//capacity-\(user)"
        google.addGrant(
            refreshToken: refreshToken, scope: "openid email https://www.googleapis.com/auth/gmail.readonly", account: FakeGoogleAccount(expiresIn: expiresIn)
        )
        let body = #"{"access_token":"ya29.capacity","refresh_token":"\#(refreshToken)","expires_in":3599,"scope":"https://www.googleapis.com/auth/gmail.readonly"}"#
        try await request(handlers, "POST", user: user, body: body, expect: 201)
    }

    /// Runs one scheduled refresh and returns its summary.
    func refreshRun(_ handlers: EventHandlers) async throws -> [String: JSONValue] {
        let event = #"{"version":"0","id":"capacity","detail-type":"Scheduled Event","source":"aws.events","account":"123456789012","time":"2026-11-23T00:00:00Z","region":"us-east-1","resources":[],"detail":{}}"#
        let outcome = await handlers.handle(Array(event.utf8), context: InvocationContext(logger: logger))
        guard case .response(let bytes) = outcome, let summary = (try? JSONBodyParser.parse(bytes))?.objectValue else {
            throw CapacityError("the refresh run failed: \(outcome)")
        }
        return summary
    }

    /// One direct invocation of fresh-token; throws unless it served a token.
    func freshToken(_ handlers: EventHandlers, user: String) async throws {
        let outcome = await handlers.handle(Array(#"{"user_id":"\#(user)"}"#.utf8), context: InvocationContext(logger: logger))
        guard case .response(let bytes) = outcome, (try? JSONBodyParser.parse(bytes))?["access_token"] != nil else {
            throw CapacityError("fresh-token served no token: \(outcome)")
        }
    }

    private func expect(_ handlers: EventHandlers, _ event: [UInt8], status: Int) async throws {
        let outcome = await handlers.handle(event, context: InvocationContext(logger: logger))
        guard case .response(let bytes) = outcome, (try? JSONBodyParser.parse(bytes))?["statusCode"] == .integer(Int64(status)) else {
            throw CapacityError("expected HTTP \(status), got \(outcome)")
        }
    }

    private static func path(_ method: String) -> String { method == "GET" ? "/v1/user/me" : "/v1/auth/gmail-tokens" }

    func stop() {
        proxy.stop()
        google.stop()
    }
}

/// The capacity run could not measure what it needs.
struct CapacityError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
