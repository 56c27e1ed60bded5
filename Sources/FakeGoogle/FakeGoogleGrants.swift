import Foundation

/// The fake's book of grants and Google's rules for `/token` and `/revoke`.
///
/// A grant is one user's consent: the refresh tokens that name it (more than one after a
/// rotation, since Google keeps the old one valid), the access tokens issued from it, and
/// whether it was revoked. Revoking any of its tokens revokes all of them, as at Google.
struct FakeGoogleGrants: Sendable {
    private struct Grant: Sendable {
        var scope: String
        var rotateTo: String?
        var account: FakeGoogleAccount
        var revoked = false
        var refreshes = 0
    }

    /// The project's OAuth clients (ours); the first is the one a grant is issued to when
    /// its account names none.
    let clientIDs: [String]
    /// Our OAuth client was deleted in the Cloud console: every refresh is refused.
    var clientDeleted = false
    private var grants: [Grant] = []
    private var byRefreshToken: [String: Int] = [:]
    private var byAccessToken: [String: Int] = [:]
    private var issued = 0
    private(set) var revokedTokens: [String] = []
    /// The refresh token presented for each access token issued.
    private var presentedFor: [String: String] = [:]
    /// Refresh tokens answered `invalid_grant`, in order (repeats included).
    private(set) var invalidGrantRefreshTokens: [String] = []
    /// Refresh tokens refused as issued to another client, in order (repeats included).
    private(set) var foreignRefreshTokens: [String] = []
    /// The accounts (subjects) Google disabled and has not enabled again.
    private(set) var disabledSubjects: Set<String> = []

    init(clientIDs: [String]) { self.clientIDs = clientIDs }

    mutating func add(refreshToken: String, scope: String, rotateTo: String?, account: FakeGoogleAccount) {
        var account = account
        // Google's subjects are 21-digit numbers; a test that names none gets one per grant.
        account.subject = account.subject ?? "1000000000" + String(100_000_000_000 + grants.count)
        account.email = account.email ?? "grant\(grants.count)@gmail.com"
        grants.append(Grant(scope: scope, rotateTo: rotateTo, account: account))
        byRefreshToken[refreshToken] = grants.count - 1
    }

    /// The user renamed their address: later `id_token`s carry `email`, same subject.
    mutating func rename(refreshToken: String, email: String) {
        if let index = byRefreshToken[refreshToken] { grants[index].account.email = email }
    }

    /// The subject the grant's `id_token`s carry.
    func subject(for refreshToken: String) -> String? { byRefreshToken[refreshToken].flatMap { grants[$0].account.subject } }

    /// The refresh token of the grant last added for `subject`.
    func refreshToken(ofSubject subject: String) -> String? {
        byRefreshToken.filter { grants[$0.value].account.subject == subject }.max { $0.value < $1.value }?.key
    }

    /// Marks a grant revoked without a revoke call: the user removed access in their
    /// account, the token expired unused, the password changed.
    mutating func invalidate(refreshToken: String) {
        if let index = byRefreshToken[refreshToken] { grants[index].revoked = true }
    }

    /// Google's own state follows the security events it sends, as at Google: `tokens-revoked`
    /// and `account-purged` end every grant the account has now (a grant added later, the
    /// user's new consent, lives), `token-revoked` ends the grant of that refresh token, and
    /// `account-disabled` refuses every refresh of the account until `account-enabled`.
    mutating func follow(_ event: FakeGoogleSecurityEvent) {
        switch (event.type, event.subject) {
        case (.tokensRevoked, .account(let sub)), (.accountPurged, .account(let sub)):
            for index in grants.indices where grants[index].account.subject == sub { grants[index].revoked = true }
        case (.accountDisabled, .account(let sub)):
            disabledSubjects.insert(sub)
        case (.accountEnabled, .account(let sub)):
            disabledSubjects.remove(sub)
        case (.tokenRevoked, .refreshToken(let token, _)):
            invalidate(refreshToken: token)
        default:
            break
        }
    }

    /// Successful refreshes of the grant `refreshToken` names (any of its refresh tokens).
    func refreshCount(for refreshToken: String) -> Int {
        byRefreshToken[refreshToken].map { grants[$0].refreshes } ?? 0
    }

    /// Whether `accessToken` was issued by a refresh that presented `refreshToken`.
    func issued(accessToken: String, presenting refreshToken: String) -> Bool {
        presentedFor[accessToken] == refreshToken
    }

    /// `POST /token`, the checks in the order Google makes them.
    mutating func token(_ request: FakeGoogleRequest) -> FakeGoogleReply {
        // Our client must send a form; refusing anything else makes a regression loud.
        guard request.isForm else {
            return .error(400, "invalid_request", "Invalid content type; expected application/x-www-form-urlencoded.")
        }
        let form = request.form
        guard form["grant_type"] == "refresh_token" else {
            return .error(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let clientID = form["client_id"], clientIDs.contains(clientID) else {
            return .error(401, "invalid_client", "The OAuth client was not found.")
        }
        guard !clientDeleted else {
            return .error(401, "deleted_client", "The OAuth client was deleted.")
        }
        // The iOS client is a public client (RFC 6749 §2.1): it has no secret, and a
        // request presenting one is refused rather than silently accepted.
        guard form["client_secret"] == nil else {
            return .error(400, "invalid_request", "client_secret is not allowed for this client type.")
        }
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            return .error(400, "invalid_request", "Missing required parameter: refresh_token")
        }
        guard let index = byRefreshToken[refreshToken] else {
            invalidGrantRefreshTokens.append(refreshToken)
            return .error(400, "invalid_grant", "Token has been expired or revoked.")
        }
        // A token of another client is refused as such whether or not it still lives.
        if (grants[index].account.issuedTo ?? clientIDs[0]) != clientID {
            foreignRefreshTokens.append(refreshToken)
            return switch grants[index].account.foreignRefusal {
            case .unauthorizedClient: .error(401, "unauthorized_client", "Unauthorized")
            case .invalidClient: .error(401, "invalid_client", "Unauthorized")
            }
        }
        if grants[index].account.unavailableFor > 0 {
            grants[index].account.unavailableFor -= 1
            return .error(503, "internal_failure", "Backend Error")
        }
        if let limit = grants[index].account.refreshesBeforeRevocation, grants[index].refreshes >= limit {
            grants[index].revoked = true
        }
        guard !grants[index].revoked else {
            invalidGrantRefreshTokens.append(refreshToken)
            return .error(400, "invalid_grant", "Token has been expired or revoked.")
        }
        if let subject = grants[index].account.subject, disabledSubjects.contains(subject) {
            invalidGrantRefreshTokens.append(refreshToken)
            return .error(400, "invalid_grant", "Account has been disabled.")
        }
        issued += 1
        let accessToken = "ya29.fake-\(issued)"
        byAccessToken[accessToken] = index
        presentedFor[accessToken] = refreshToken
        grants[index].refreshes += 1
        let grant = grants[index]
        var answer: [String: any Sendable] = [
            "access_token": accessToken, "expires_in": grant.account.expiresIn, "scope": grant.scope, "token_type": "Bearer",
        ]
        // Google Sign-In asks for openid: its answers then carry the account's id_token.
        if grant.scope.split(separator: " ").contains("openid"), let subject = grant.account.subject {
            answer["id_token"] = FakeGoogleIDToken.make(
                clientID: clientID, subject: subject, email: grant.account.email, emailVerified: grant.account.emailVerified, issuedAt: Date()
            )
        }
        // A rotation is answered once; the old refresh token stays valid, as at Google.
        if let newToken = grants[index].rotateTo {
            grants[index].rotateTo = nil
            byRefreshToken[newToken] = index
            answer["refresh_token"] = newToken
        }
        return .ok(answer)
    }

    /// `POST /revoke` with `token` in the form (or the query, which Google also takes).
    mutating func revoke(_ request: FakeGoogleRequest) -> FakeGoogleReply {
        guard let token = request.form["token"] ?? request.query["token"], !token.isEmpty else {
            return .error(400, "invalid_request", "Bad Request")
        }
        guard let index = byRefreshToken[token] ?? byAccessToken[token], !grants[index].revoked else {
            return .error(400, "invalid_token", "Token expired or revoked")
        }
        grants[index].revoked = true
        revokedTokens.append(token)
        return .answer(status: 200, headers: FakeGoogleReply.jsonHeaders, body: "{}")
    }
}
