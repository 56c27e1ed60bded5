import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

/// A store from a factory, a fake Google on loopback with the real client in front of it,
/// and helpers to seed token sets that expire when a test wants.
struct RefreshFixture {
    let stores: StoreFactory.Stores
    let recorder: WriteRecordingSecretStore
    /// What the vault and jobs use: on a factory whose grants are secrets, the Secrets
    /// Manager mapping over ``recorder`` (so writes are counted); else the factory's own
    /// grant store (DynamoDB), whose writes ``recorder`` does not see.
    let grants: any GrantStore
    let google: FakeGoogleServer
    let client: GoogleOAuthClient
    let run = "r\(UUID().uuidString.prefix(8).lowercased())"
    let logs = LogCapture()
    /// Every reservation the refreshers' write limiters granted.
    let permits = PermitLog()

    /// - Parameter due: the due rule every write keys a due index by (the processes'
    ///   `REFRESH_MODE`); the default refresh settings' unless a test runs another mode.
    /// - Parameter clientIDs: the OAuth clients the fake Google knows, the first its default.
    init(
        _ stores: StoreFactory.Stores, due: GrantDuePolicy = .defaultRefresh, clientIDs: [String] = ["fake-ios-client.apps.googleusercontent.com"],
        retry: RetryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20), totalBudget: TestTime.unreachableBudget)
    ) throws {
        self.stores = stores
        recorder = WriteRecordingSecretStore(stores.secrets)
        if let indexed = stores.grants as? DynamoDBGrantStore {
            grants = indexed.keyed(by: due)
        } else {
            grants = stores.grants is SecretsManagerGrantStore ? SecretsManagerGrantStore(recorder) : stores.grants
        }
        google = try FakeGoogleServer(clientIDs: clientIDs)
        client = GoogleOAuthClient(
            tokenEndpoint: google.tokenEndpoint, revokeEndpoint: google.revokeEndpoint, transport: CurlHTTPClient(),
            retry: retry, logger: logs.logger
        )
    }

    /// The deployment key's digester every write stamps refresh tokens with, as a
    /// function whose client secret holds a `token_digest_key`.
    static let digester = RefreshTokenDigester(key: "test-token-digest-key-0123456789abcdef")!

    var vault: TokenVault { TokenVault(grants: grants, digester: { Self.digester }) }

    /// Whether the store lists only what may be due (a due index), so a run's `scanned`
    /// counts those, not every grant.
    var listsOnlyDue: Bool { grants.listsOnlyDue }

    func user(_ index: Int) -> UserID { UserID("\(run)-\(index)")! }

    /// Stores a set for user `index` that expires in `expiresIn` seconds, with a refresh
    /// token Google knows unless `knownToGoogle` is false, held by `clientID` (by default
    /// Google's first client, as a verified connect records it).
    @discardableResult
    func seed(
        _ index: Int, expiresIn: Int = 60, knownToGoogle: Bool = true, refreshToken: String? = nil, clientID: String? = nil
    ) async throws -> String {
        let token = refreshToken ?? "1//\(run)-refresh-\(index)"
        if knownToGoogle { google.addGrant(refreshToken: token) }
        _ = try await vault.store(
            IncomingTokens(
                accessToken: "ya29.\(run)-seed-\(index)", refreshToken: token, expiresIn: expiresIn, scopes: [GmailScopes.readonly],
                email: "u\(index)@gmail.com", clientID: clientID ?? google.clientID
            ),
            for: user(index)
        )
        return token
    }

    func refresher(
        windowSeconds: Int = 900, keepAliveSeconds: Int? = nil, writesPerSecond: Int = 1000, clients: GoogleClients? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> TokenRefresher {
        TokenRefresher(
            vault: vault, google: client, clients: clients ?? GoogleClients(ids: google.clientIDs), windowSeconds: windowSeconds, keepAliveSeconds: keepAliveSeconds,
            limiter: WriteRateLimiter(writesPerSecond: writesPerSecond, onGrant: permits.record), now: now
        )
    }

    /// A job over this fixture's users; `now` is the job's and its refresher's clock.
    func job(
        _ settings: RefreshSettings = RefreshSettings(windowSeconds: 900, concurrency: 8, maxWritesPerSecond: 1000, stopMarginSeconds: 1),
        clients: GoogleClients? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) -> RefreshJob {
        RefreshJob(
            grants: grants,
            refresher: refresher(
                windowSeconds: settings.windowSeconds, keepAliveSeconds: settings.keepAlive, writesPerSecond: settings.maxWritesPerSecond,
                clients: clients, now: now
            ),
            settings: settings, userPrefix: "\(run)-", now: now
        )
    }

    /// The stored value and version, byte for byte.
    func raw(_ index: Int) async throws -> (String, GrantVersion) {
        let value = try await grants.read(user(index).rawValue)
        return (value.value, value.version)
    }

    /// The listing attributes (tags) of user `index`'s grant.
    func attributes(_ index: Int) async throws -> [String: String] {
        try await grants.state(of: user(index).rawValue).attributes
    }

    func current(_ index: Int) async throws -> GmailTokenSet {
        try #require(try await vault.current(of: user(index))).tokenSet
    }
}
