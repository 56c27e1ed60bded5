#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseAWS
import PayPulseGoogle
import PayPulseRuntime

/// How to reach AWS: region, credentials and one endpoint per service.
package struct AWSConfiguration: Sendable, Equatable {
    /// The region (`AWS_REGION`, then `AWS_DEFAULT_REGION`).
    package let region: String
    /// The credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
    package let credentials: AWSCredentials
    /// The Secrets Manager endpoint.
    package let secretsManagerEndpoint: String
    /// The DynamoDB endpoint.
    package let dynamoDBEndpoint: String
    /// The KMS endpoint.
    package let kmsEndpoint: String
    /// The EventBridge endpoint.
    package let eventBridgeEndpoint: String
    /// The CA certificates trusted for AWS endpoints alone (`AWS_CA_BUNDLE`, as every AWS SDK
    /// reads it: a VPC endpoint or proxy with a private CA); `nil` trusts what Google's calls
    /// trust.
    package let caBundlePath: String?

    /// Reads the AWS variables. Each service's endpoint is its own variable, then
    /// `AWS_ENDPOINT_URL`, then the regional endpoint (the order the AWS SDKs and CLI use).
    init(_ reader: EnvironmentReader, store: StoreBackend) throws(ConfigurationError) {
        let needed = "required when PAYPULSE_STORE=\(store.rawValue)"
        guard let region = reader.value("AWS_REGION") ?? reader.value("AWS_DEFAULT_REGION") else {
            throw ConfigurationError(variable: "AWS_REGION", problem: "\(needed) (AWS_DEFAULT_REGION is also read)")
        }
        guard region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
            throw ConfigurationError(variable: "AWS_REGION", problem: "not a region name: '\(region)'")
        }
        guard let accessKey = reader.value("AWS_ACCESS_KEY_ID") else {
            throw ConfigurationError(variable: "AWS_ACCESS_KEY_ID", problem: needed)
        }
        guard let secretKey = reader.value("AWS_SECRET_ACCESS_KEY") else {
            throw ConfigurationError(variable: "AWS_SECRET_ACCESS_KEY", problem: needed)
        }
        let shared = try reader.url("AWS_ENDPOINT_URL")
        self.region = region
        self.credentials = AWSCredentials(accessKeyID: accessKey, secretAccessKey: secretKey, sessionToken: reader.value("AWS_SESSION_TOKEN"))
        self.secretsManagerEndpoint = try reader.url("AWS_ENDPOINT_URL_SECRETS_MANAGER") ?? shared
            ?? AWSService.secretsManager.regionalEndpoint(region: region)
        self.dynamoDBEndpoint = try reader.url("AWS_ENDPOINT_URL_DYNAMODB") ?? shared ?? AWSService.dynamoDB.regionalEndpoint(region: region)
        self.kmsEndpoint = try reader.url("AWS_ENDPOINT_URL_KMS") ?? shared ?? AWSService.kms.regionalEndpoint(region: region)
        self.eventBridgeEndpoint = try reader.url("AWS_ENDPOINT_URL_EVENTBRIDGE") ?? shared
            ?? AWSService.eventBridge.regionalEndpoint(region: region)
        self.caBundlePath = try reader.readableFile("AWS_CA_BUNDLE")
    }
}

/// Google's endpoints and where the iOS client ID lives.
package struct GoogleSettings: Sendable, Equatable {
    /// `GOOGLE_TOKEN_ENDPOINT`.
    package let tokenEndpoint: String
    /// `GOOGLE_REVOKE_ENDPOINT`.
    package let revokeEndpoint: String
    /// `GOOGLE_CLIENT_ID_SECRET_ID`: the secret holding the iOS client ID.
    package let clientIDSecretID: String
    /// `GOOGLE_RISC_CONFIGURATION_URL`: Cross-Account Protection's discovery document, which
    /// names the security events' issuer and keys.
    package let riscConfigurationURL: String

    /// Google's production endpoints.
    package static let productionTokenEndpoint = "https://oauth2.googleapis.com/token"
    /// Google's production revoke endpoint.
    package static let productionRevokeEndpoint = "https://oauth2.googleapis.com/revoke"
    /// The default client-ID secret.
    package static let defaultClientIDSecretID = "Google-OAuth-Client-ID"
    /// Google's RISC discovery document.
    package static let productionRISCConfigurationURL = "https://accounts.google.com/.well-known/risc-configuration"

    /// Creates settings (Google's production endpoints, secret `Google-OAuth-Client-ID`).
    package init(
        tokenEndpoint: String = productionTokenEndpoint, revokeEndpoint: String = productionRevokeEndpoint,
        clientIDSecretID: String = defaultClientIDSecretID, riscConfigurationURL: String = productionRISCConfigurationURL
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.revokeEndpoint = revokeEndpoint
        self.clientIDSecretID = clientIDSecretID
        self.riscConfigurationURL = riscConfigurationURL
    }

    /// Reads the Google variables.
    init(_ reader: EnvironmentReader) throws(ConfigurationError) {
        self.init(
            tokenEndpoint: try reader.url("GOOGLE_TOKEN_ENDPOINT") ?? Self.productionTokenEndpoint,
            revokeEndpoint: try reader.url("GOOGLE_REVOKE_ENDPOINT") ?? Self.productionRevokeEndpoint,
            clientIDSecretID: reader.value("GOOGLE_CLIENT_ID_SECRET_ID") ?? Self.defaultClientIDSecretID,
            riscConfigurationURL: try reader.url("GOOGLE_RISC_CONFIGURATION_URL") ?? Self.productionRISCConfigurationURL
        )
    }
}

/// Where `paypulse risc` manages the Cross-Account Protection stream. Read by the CLI alone
/// (no function manages the stream), so no deployment sets these and `deploy-facts` does
/// not list them.
package struct RISCManagementSettings: Sendable, Equatable {
    /// `GOOGLE_RISC_API`: Google's RISC management API base, without a trailing slash
    /// (a local fake's in tests).
    package let apiBase: String
    /// `PAYPULSE_CA_BUNDLE`, as for Google's other calls.
    package let caBundlePath: String?
    /// Log level and format (`LOG_LEVEL`, …).
    package let logging: LogSettings

    /// Reads the process environment.
    /// - Parameter defaultLogLevel: The level when no variable names one.
    /// - Throws: ``ConfigurationError`` naming the bad variable.
    package static func read(defaultLogLevel: Logger.Level = .warning) throws(ConfigurationError) -> RISCManagementSettings {
        try fromEnvironment(ProcessInfo.processInfo.environment, defaultLogLevel: defaultLogLevel)
    }

    /// Reads `environment`.
    /// - Throws: ``ConfigurationError`` naming the bad variable.
    package static func fromEnvironment(
        _ environment: [String: String], defaultLogLevel: Logger.Level = .warning
    ) throws(ConfigurationError) -> RISCManagementSettings {
        let reader = EnvironmentReader(variables: environment)
        var base = try reader.url("GOOGLE_RISC_API") ?? RISCManagementClient.productionAPIBase
        while base.hasSuffix("/") { base.removeLast() }
        return RISCManagementSettings(
            apiBase: base, caBundlePath: try reader.readableFile("PAYPULSE_CA_BUNDLE"),
            logging: LogSettings.read(reader, defaultLevel: defaultLogLevel)
        )
    }
}
