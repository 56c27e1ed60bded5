import Foundation
import Logging
import PayPulseEmbedded
import PayPulsePorts
import PayPulseResponseMatching
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// Sends every API event of `events/` as the HTTP request it stands for to a built
/// `paypulse serve` (a fresh embedded store, the stand-in Google knowing the manifest's
/// grants), the cases it needs first included, and compares the HTTP answer with the
/// event's expected response.
@Suite("Event replay over HTTP through paypulse serve")
struct ServeReplayTests {
    @Test("every API event's request", arguments: ServeReplayCase.all)
    func replay(_ replayCase: ServeReplayCase) async throws {
        var environment: [String: String] = [:]
        if replayCase.base.environment == "unreachable-aws" { environment = try ReplayBackend.unreachableAWSEnvironment() }
        let server = try await LocalServerProcess(
            binaryDirectory: FunctionProcess.binaryDirectory,
            arguments: ["--fake-google", "--grants", ReplayManifest.eventsDirectory.appendingPathComponent("manifest.json").path],
            environment: environment
        )
        defer { #expect((try? server.stop().status) == 0, "a clean stop on SIGTERM") }
        if environment.isEmpty { try await seedUser(stateDirectory: server.stateDirectory) }

        for name in replayCase.base.before {
            if let earlier = ServeReplayCase.all.first(where: { $0.base.name == name }) {
                let response = try await send(earlier.request, to: server)
                #expect((200..<300).contains(response.status), "set-up case \(name) answered \(response.status): \(response.bodyText)")
            } else {
                // A scheduled refresh: the function itself, on the server's store and its Google.
                let earlier = try #require(ReplayManifest.named(name), "unknown case \(name)")
                var functionEnvironment = ReplayBackend.baseEnvironment()
                functionEnvironment["PAYPULSE_STATE_DIR"] = server.stateDirectory
                functionEnvironment["GOOGLE_TOKEN_ENDPOINT"] = server.baseURL + "/fake-google/token"
                functionEnvironment["GOOGLE_REVOKE_ENDPOINT"] = server.baseURL + "/fake-google/revoke"
                let result = try await FunctionProcess.run(earlier.function, event: ReplayManifest.bytes(earlier.event), environment: functionEnvironment)
                #expect(result.status == 0, "set-up case \(name) failed: \(result.stderr.suffix(500))")
            }
        }
        let response = try await send(replayCase.request, to: server)
        let expected = ReplayManifest.bytes(try #require(replayCase.base.expected))
        let actual = try ServeReplayCase.proxyJSON(response, shapedLike: expected)
        #expect(ResponseMatching.mismatch(expected: expected, actual: actual) == nil, "\(replayCase): \(ResponseMatching.mismatch(expected: expected, actual: actual) ?? "")")
        let scanner = SecretScanner.forEvents(
            ([replayCase.base.event] + replayCase.base.before.compactMap { ReplayManifest.named($0)?.event }).map(ReplayManifest.bytes)
        )
        let leaks = scanner.findings(in: server.log, source: "server log") + scanner.findings(in: actual, source: "response")
        #expect(leaks.isEmpty, "secrets in the output of \(replayCase): \(leaks)")
        #expect(server.log.contains("\(replayCase.request.method) \(replayCase.request.path) \(response.status) "), "one access-log line")
    }

    /// Every API event is either replayed or left out for a reason that is not the server's.
    @Test("the left-out events are only those HTTP cannot carry")
    func leftOut() {
        let apiCases = ReplayManifest.allCases.filter { ServeReplayCase.apiFunctions.contains($0.function) }
        let replayed = Set(ServeReplayCase.all.map(\.base.name))
        let leftOut = apiCases.filter { !replayed.contains($0.name) }.map(\.description).sorted()
        let authorizerCases = apiCases.filter { $0.environment == ServeReplayCase.authorizerEnvironment }.map(\.description)
        #expect(!authorizerCases.isEmpty)
        #expect(leftOut == (Array(ServeReplayCase.leftOut.keys) + authorizerCases).sorted(), "\(leftOut)")
    }

    private func send(_ request: ServeReplayCase.Request, to server: LocalServerProcess) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        let url = server.baseURL + request.path + (request.query.isEmpty ? "" : "?" + request.query)
        return try await CurlHTTPClient().execute(HTTPRequest(method: request.method, url: url, headers: headers, body: request.body, timeout: .seconds(30)))
    }

    private func seedUser(stateDirectory: String) async throws {
        let seed = ReplayManifest.shared.user
        let database = try EmbeddedDatabase(stateDirectory: stateDirectory, logger: Logger(label: "seed"))
        try await EmbeddedUserDirectory(database: database, logger: Logger(label: "seed"))
            .putUser(UserRecord(userID: seed.user_id, name: seed.name, email: seed.email, createdOn: seed.created_on))
    }
}

/// A manifest case of an API function, with the HTTP request its event stands for.
struct ServeReplayCase: CustomStringConvertible, Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var query: String
        var headers: [(String, String)]
        var body: [UInt8]
    }

    let base: ReplayManifest.Case
    let request: Request

    var description: String { base.description }

    static let apiFunctions: Set<String> = ["store-tokens", "user-profile", "disconnect"]

    /// API events left out, and why: each is about what API Gateway hands a function, not
    /// about an HTTP request.
    static let leftOut: [String: String] = [
        "store-tokens/not-an-api-gateway-event": "not an API Gateway event: no HTTP request stands behind it",
        "user-profile/not-json": "not JSON: no HTTP request stands behind it",
        "store-tokens/v2-invalid-base64-body": "an HTTP body is bytes; only an event can carry bad base64",
        "store-tokens/v2-wrong-method": "PUT on a path two functions share: the server's router answers 405 for both (allow: DELETE, POST)",
        "disconnect/v2-wrong-method": "GET on a path two functions share: the server's router answers 405 for both (allow: DELETE, POST)",
        // serve's OAuth clients are the developer's (its state directory's client-ID secret),
        // not the manifest's list; the functions' own replays prove these on every store.
        "store-tokens/v2-second-client-first-connection": "a grant of the manifest's second OAuth client, which serve does not list",
        "store-tokens/v1-second-client-named-by-app": "a grant of the manifest's second OAuth client, which serve does not list",
        "disconnect/v2-second-client-disconnect": "a grant of the manifest's second OAuth client, which serve does not list",
        "user-profile/v2-after-account-disabled": "set up by a security event signed with the replay's RISC key, which serve's stand-in Google does not publish",
    ]

    /// Cases run with `PAYPULSE_AUTH_MODE=apigateway` are left out too: their identity is
    /// the claims API Gateway's authorizer adds to the event, which no HTTP request carries
    /// (serve verifies the JWT itself).
    static let authorizerEnvironment = "apigateway"

    static let all: [ServeReplayCase] = ReplayManifest.allCases.compactMap { replayCase in
        guard apiFunctions.contains(replayCase.function), leftOut[replayCase.description] == nil, replayCase.environment != authorizerEnvironment,
              let request = request(of: ReplayManifest.bytes(replayCase.event)) else { return nil }
        return ServeReplayCase(base: replayCase, request: request)
    }

    /// The request an API Gateway event (payload 1.0 or 2.0) stands for.
    static func request(of event: Data) -> Request? {
        guard let json = try? JSONSerialization.jsonObject(with: event) as? [String: Any],
              let context = json["requestContext"] as? [String: Any] else { return nil }
        let method: String, path: String, query: String
        if let http = context["http"] as? [String: Any] {
            method = http["method"] as? String ?? ""
            let stage = context["stage"] as? String
            let raw = json["rawPath"] as? String ?? ""
            path = stage.map { $0 == "$default" ? raw : (raw.hasPrefix("/\($0)/") ? String(raw.dropFirst($0.count + 1)) : raw) } ?? raw
            query = json["rawQueryString"] as? String ?? ""
        } else {
            method = json["httpMethod"] as? String ?? ""
            path = json["path"] as? String ?? ""
            let parameters = json["queryStringParameters"] as? [String: String] ?? [:]
            query = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        }
        var headers: [(String, String)] = []
        for (name, value) in json["headers"] as? [String: String] ?? [:]
        where !["host", "content-length", "connection", "transfer-encoding", "expect"].contains(name.lowercased()) {
            headers.append((name, value))
        }
        var body: [UInt8] = []
        if let text = json["body"] as? String {
            if json["isBase64Encoded"] as? Bool == true {
                guard let decoded = Data(base64Encoded: text) else { return nil }
                body = Array(decoded)
            } else {
                body = Array(text.utf8)
            }
        }
        return Request(method: method, path: path, query: query, headers: headers, body: body)
    }

    /// The HTTP answer written as the function's proxy response, in the expected file's
    /// payload version, headers of the HTTP connection itself left out.
    static func proxyJSON(_ response: HTTPResponse, shapedLike expected: Data) throws -> String {
        var headers: [String: String] = [:]
        for field in response.headers where !["content-length", "date", "connection", "server", "keep-alive"].contains(field.name.lowercased()) {
            headers[field.name.lowercased()] = field.value
        }
        var object: [String: Any] = ["statusCode": response.status, "headers": headers, "body": response.bodyText, "isBase64Encoded": false]
        if let shape = try JSONSerialization.jsonObject(with: expected) as? [String: Any], shape["multiValueHeaders"] != nil {
            object["multiValueHeaders"] = headers.mapValues { [$0] }
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}
