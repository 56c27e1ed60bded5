import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport

/// What the Google tests share: a refresh token with every character form encoding must
/// protect, a quick retry policy, and a client pointed at a fake.
enum GoogleFixture {
    static let refreshToken = "1//0gRefresh+token/with=odd&chars ü"
    static let gmailScope = "https://www.googleapis.com/auth/gmail.readonly"

    /// Three attempts with millisecond backoff, so retry tests stay fast. The tests count
    /// attempts, so the budget is one no scheduling delay reaches (a flat 60 s ran out before
    /// the third attempt while other suites held the cores).
    static var quickRetry: RetryPolicy {
        RetryPolicy(
            maxAttempts: 3, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20), totalBudget: TestTime.unreachableBudget,
            attemptTimeout: TestTime.scaled(.seconds(5))
        )
    }

    /// A client of `fake` on its own HTTP client (fresh connections for every test).
    static func client(_ fake: FakeGoogleServer, retry: RetryPolicy = .none, logs: LogCapture = LogCapture()) -> GoogleOAuthClient {
        GoogleOAuthClient(
            tokenEndpoint: fake.tokenEndpoint, revokeEndpoint: fake.revokeEndpoint,
            transport: CurlHTTPClient(), retry: retry, logger: logs.logger
        )
    }

    /// A client of a fake that knows `refreshToken`.
    static func fakeWithGrant(rotateTo: String? = nil) throws -> FakeGoogleServer {
        let fake = try FakeGoogleServer()
        fake.addGrant(refreshToken: refreshToken, rotateTo: rotateTo)
        return fake
    }
}
