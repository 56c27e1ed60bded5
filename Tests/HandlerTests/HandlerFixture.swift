import Foundation
import Logging
import PayPulseDomain
import PayPulseHandlers
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// In-memory ports, a real authenticator on the development key, and request builders.
struct HandlerFixture {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let user = UserRecord(userID: "user-1", name: "Jane Smith", email: "jane@example.com", createdOn: "2024-11-01T10:00:00Z")

    let secrets = InMemorySecretStore()
    let users = InMemoryUserDirectory([HandlerFixture.user])
    let guardian: RequestGuard
    let minter: DevelopmentTokenMinter
    let logs = LogCapture()
    /// Google, knowing the grants the tests send (see ``knownGrants``).
    let google = InMemoryGoogleOAuth()

    init() async throws {
        let settings = try AuthSettings(key: Array(AuthSettings.developmentKey.utf8))
        guardian = RequestGuard(authenticator: Authenticator(settings: settings), now: { HandlerFixture.now })
        minter = try DevelopmentTokenMinter(settings: settings)
        google.addGrant("1//first", subject: "110000000000000000001", email: "user@gmail.com",
                        scope: "\(gmailScope) https://www.googleapis.com/auth/userinfo.email openid")
        google.addGrant("r1", subject: "110000000000000000002", email: "a@gmail.com")
        google.addGrant("r", subject: "110000000000000000003", email: "r@gmail.com", scope: "openid")
        google.addGrant("1//hygiene-refresh", subject: "110000000000000000004", email: "h@gmail.com")
    }

    var vault: TokenVault { TokenVault(secrets: secrets, now: { HandlerFixture.now }) }
    var verifier: GrantVerifier {
        let clients = GoogleClients(ids: [google.clientID])
        return GrantVerifier(google: google, clients: { clients }, health: OAuthClientHealth(google: google), now: { HandlerFixture.now })
    }
    var storeTokens: StoreTokensHandler { StoreTokensHandler(guardian: guardian, quota: InMemoryRequestQuota(), vault: vault, verifier: verifier, metrics: DiscardedMetrics()) }
    var userProfile: UserProfileHandler { UserProfileHandler(guardian: guardian, users: users, grants: vault.grants) }

    /// A valid bearer token for `subject`.
    func token(_ subject: String = "user-1") async throws -> String {
        try minter.mint(subject: subject, name: nil, email: nil, issuedAt: Self.now.addingTimeInterval(-60), expiresAt: Self.now.addingTimeInterval(3600))
    }

    private func resolved(_ token: String?) async throws -> String {
        if let token { return token }
        return try await self.token()
    }

    /// A store-tokens request with a JSON body.
    func post(json: String, contentType: String? = "application/json", token: String? = nil) async throws -> APIRequest {
        let bearer = try await resolved(token)
        var headers = ["authorization": "Bearer \(bearer)"]
        if let contentType { headers["content-type"] = contentType }
        return APIRequest(method: "POST", path: "/v1/auth/gmail-tokens", headers: APIHeaders(headers), body: Array(json.utf8))
    }

    /// A profile request.
    func getProfile(token: String? = nil) async throws -> APIRequest {
        let bearer = try await resolved(token)
        return APIRequest(method: "GET", path: "/v1/user/me", headers: APIHeaders(["Authorization": "Bearer \(bearer)"]))
    }
}

/// The JSON body of a response as a dictionary.
func body(_ response: APIResponse) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
}

/// The error code of an error response.
func errorCode(_ response: APIResponse) throws -> String? {
    try body(response)["error"] as? String
}

let gmailScope = "https://www.googleapis.com/auth/gmail.readonly"
