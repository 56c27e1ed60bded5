import Logging
import PayPulseAWS
import PayPulsePorts
import PayPulseTransport

/// Clients for moto_server with test credentials and a quick retry policy.
package enum AWSTestClients {
    /// The credentials moto accepts when signature checks are off.
    package static let motoCredentials = AWSCredentials(accessKeyID: "AKIDPAYPULSETEST", secretAccessKey: "paypulse-test-secret-key")

    /// The region tests use.
    package static let region = "us-east-1"

    /// A fast retry policy so that fault tests finish quickly. Its total budget is one no
    /// scheduling delay reaches (``TestTime/unreachableBudget``), so attempt counts stay exact
    /// on a loaded machine: at load 7 on two CPUs, three slow attempts spent a flat 60 s, and
    /// a budget scaled by the load average still lags a sudden burst.
    package static var quickRetries: RetryPolicy {
        RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(10), maxDelay: .milliseconds(100), totalBudget: TestTime.unreachableBudget)
    }

    /// One transport for the whole test process, concurrent as in production: the test
    /// moto handles one request at a time itself (scripts/moto-server.py), for every process.
    package static let transport: any HTTPTransport = CurlHTTPClient()

    /// An AWS JSON client for `service` at `endpoint`. Its attempt timeout is longer than any
    /// wait the test moto's queue makes (one request at a time, for every suite at once): an
    /// attempt timed out there is retried, and the retry of a compare-and-swap that had landed
    /// then fails its condition, a loss the test did not plant. Tests of the timeout pass their own.
    package static func jsonClient(
        _ service: AWSService, endpoint: String, credentials: AWSCredentials = motoCredentials,
        retryPolicy: RetryPolicy = quickRetries, timeout: Duration = .seconds(60), logger: Logger = Logger(label: "test")
    ) throws -> AWSJSONClient {
        try AWSJSONClient(
            settings: .init(service: service, region: region, endpoint: endpoint, credentials: credentials),
            transport: transport, retryPolicy: retryPolicy.withAttemptTimeout(timeout), logger: logger
        )
    }

    /// A Secrets Manager client at `endpoint`.
    package static func secretsManager(endpoint: String, credentials: AWSCredentials = motoCredentials, logger: Logger = Logger(label: "test")) throws -> SecretsManagerClient {
        SecretsManagerClient(client: try jsonClient(.secretsManager, endpoint: endpoint, credentials: credentials, logger: logger))
    }

    /// A DynamoDB client at `endpoint`.
    package static func dynamoDB(endpoint: String, logger: Logger = Logger(label: "test")) throws -> DynamoDBClient {
        DynamoDBClient(client: try jsonClient(.dynamoDB, endpoint: endpoint, logger: logger))
    }
}
