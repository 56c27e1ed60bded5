import Foundation
import Logging
import PayPulseApp
import PayPulseAWS
import PayPulseDomain
import PayPulseEmbedded
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime
import PayPulseTestSupport
import Testing

/// One user's storm of store-tokens posts beside other users connecting, through the real
/// store-tokens composition (its ``RequestQuota`` in the store, Google in memory counting every
/// proof): on the embedded store, and on Secrets Manager with the quota in DynamoDB on a moto
/// of its own. The storm's eight posts in flight would fill the shared moto's one-at-a-time
/// queue, and other suites' built functions (five seconds an AWS attempt, as deployed) then
/// time out in it.
@Suite("One user's storm of store-tokens posts never reaches the others or Google")
struct StoreTokensStormTests {
    static let stormUser = "storm-user", stormToken = "1//storm"

    @Test("200 posts of one user beside 20 users connecting: the 20 all stored, the storm 429 beyond 10, Google asked 10 times for it",
          arguments: ["embedded", "aws"])
    func stormBesideOthers(_ store: String) async throws {
        let bench = try await StormBench(store: store)
        let others = (1...20).map { (user: "calm-\($0)", token: "1//calm-\($0)") }
        for (index, other) in others.enumerated() {
            bench.google.addGrant(other.token, subject: "1100000000000000001\(String(format: "%02d", index))", email: "\(other.user)@gmail.com")
        }
        bench.google.addGrant(Self.stormToken, subject: "110000000000000000999", email: "storm@gmail.com")
        // The storm's posts and the others' connections interleaved, eight in flight at a time.
        var posts = (0..<200).map { _ in (user: Self.stormUser, token: Self.stormToken) }
        for (index, other) in others.enumerated() { posts.insert(other, at: index * 10 + 5) }
        let answers = try await bench.post(posts, inFlight: 8)

        for other in others {
            #expect(answers.filter { $0.user == other.user }.map(\.response.status) == [201], "\(other.user)")
        }
        let storm = answers.filter { $0.user == Self.stormUser }
        let stored = storm.filter { $0.response.status == 201 }, refused = storm.filter { $0.response.status == 429 }
        #expect(stored.count + refused.count == 200, "\(Set(storm.map(\.response.status)))")
        // DynamoDB's compare-and-swap may refuse a few more under the storm's own contention; never fewer.
        #expect(stored.count <= 10 && stored.count >= (store == "embedded" ? 10 : 1), "\(stored.count) stored")
        for answer in refused.prefix(3) {
            let retryAfter = try #require(answer.response.headers["retry-after"].flatMap(Int.init))
            #expect((1...60).contains(retryAfter))
            #expect(answer.response.body.contains(#""error":"too_many_requests""#), "\(answer.response.body)")
        }
        // Google saw at most the limit's worth of proofs for the storm, and each other user's once.
        #expect(bench.google.refreshes.filter { $0 == Self.stormToken }.count == stored.count)
        #expect(bench.google.refreshes.filter { $0 != Self.stormToken }.count == 20)
    }
}

/// The store-tokens composition on one store, Google in memory, and a JWT minter.
struct StormBench {
    static let jwtSecretID = "paypulse/jwt-key", key = String(repeating: "s", count: 48)
    let google = InMemoryGoogleOAuth()
    let handler: @Sendable (APIRequest, InvocationContext) async -> APIResponse
    let minter: DevelopmentTokenMinter
    /// The storm's own moto, kept running while the bench lives.
    let moto: MotoServer?

    init(store: String) async throws {
        var environment = ["PAYPULSE_STORE": store, "PAYPULSE_JWT_SECRET_ID": Self.jwtSecretID]
        moto = store == "embedded" ? nil : try await MotoServer.launchPrivate()
        if let moto {
            environment.merge([
                "AWS_REGION": AWSTestClients.region, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_ENDPOINT_URL": moto.endpoint,
                "REQUEST_QUOTAS_TABLE": "quotas-\(UUID().uuidString.lowercased())",
                "GOOGLE_CLIENT_ID_SECRET_ID": "storm/\(UUID().uuidString.lowercased())/google-client-id",
            ]) { $1 }
            environment["PAYPULSE_JWT_SECRET_ID"] = "storm/\(UUID().uuidString.lowercased())/jwt-key"
        } else {
            environment["PAYPULSE_STATE_DIR"] = FileManager.default.temporaryDirectory.appendingPathComponent("storm-\(UUID().uuidString)").path
        }
        let configuration = try AppConfiguration.fromEnvironment(environment)
        let plain = try Assembly.build(configuration: configuration, logger: Logger(label: "storm") { _ in SwiftLogNoOpLogHandler() })
        if let quota = try plain.requestQuota() as? DynamoDBRequestQuota { try await quota.createTableIfNeeded() }
        let secrets = try plain.secretStore()
        _ = try await secrets.createSecret(name: try #require(configuration.jwt.secretID), value: Self.key, tags: [:], clientRequestToken: UUID().uuidString)
        _ = try await secrets.createSecret(
            name: configuration.google.clientIDSecretID, value: google.clientID, tags: [:], clientRequestToken: UUID().uuidString
        )
        var wrappers = PortWrappers()
        let google = google
        wrappers.google = { _ in google }
        handler = try #require(try await plain.wrapping(wrappers).eventHandlers(for: .storeTokens).http)
        minter = try DevelopmentTokenMinter(settings: try AuthSettings(key: Array(Self.key.utf8)))
    }

    /// Posts each of `posts` (a user and the refresh token they send), `inFlight` at a time, in order.
    func post(_ posts: [(user: String, token: String)], inFlight: Int) async throws -> [(user: String, response: APIResponse)] {
        let now = Date()
        let requests = try posts.map { post in
            let bearer = try minter.mint(subject: post.user, name: nil, email: nil, issuedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(3600))
            let body = #"{"access_token":"ya29.a","refresh_token":"\#(post.token)","expires_in":3600,"scope":"\#(InMemoryGoogleOAuth.signInScope)"}"#
            return (post.user, APIRequest(
                method: "POST", path: "/v1/auth/gmail-tokens",
                headers: APIHeaders(["authorization": "Bearer \(bearer)", "content-type": "application/json"]), body: Array(body.utf8)
            ))
        }
        let handler = handler, context = InvocationContext(logger: Logger(label: "storm") { _ in SwiftLogNoOpLogHandler() })
        return await withTaskGroup(of: (Int, String, APIResponse).self) { group in
            var answers: [(Int, String, APIResponse)] = []
            for (index, (user, request)) in requests.enumerated() {
                if index - answers.count >= inFlight, let answer = await group.next() { answers.append(answer) }
                group.addTask { (index, user, await handler(request, context)) }
            }
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0 < $1.0 }.map { (user: $0.1, response: $0.2) }
        }
    }
}
