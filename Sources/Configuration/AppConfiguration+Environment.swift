#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseAWS
import PayPulseDomain
import PayPulseSigV4

extension AppConfiguration {
    /// The default users table name.
    public static let defaultUsersTable = "paypulse-users"
    /// The default embedded state directory, relative to the working directory.
    public static let defaultStateDirectory = ".paypulse"
    /// The variable naming the trusted CA certificates file (see ``caBundlePath``).
    public static let caBundleVariable = "PAYPULSE_CA_BUNDLE"

    /// Reads the process environment.
    /// - Throws: ``ConfigurationError`` naming the first bad variable.
    public static func fromProcessEnvironment() throws -> AppConfiguration {
        try fromEnvironment(ProcessInfo.processInfo.environment)
    }

    /// Reads a configuration from environment variables.
    /// - Throws: ``ConfigurationError`` naming the first bad variable.
    public static func fromEnvironment(_ environment: [String: String]) throws -> AppConfiguration {
        func value(_ name: String) -> String? {
            guard let raw = environment[name], !raw.allSatisfy(\.isWhitespace) else { return nil }
            return raw
        }
        let insideLambda = value("AWS_LAMBDA_FUNCTION_NAME") != nil
        let store: StoreBackend
        if let raw = value("PAYPULSE_STORE") {
            guard let parsed = StoreBackend(rawValue: raw.lowercased()) else {
                throw ConfigurationError(variable: "PAYPULSE_STORE", problem: "expected 'embedded' or 'aws', got '\(raw)'")
            }
            store = parsed
        } else {
            store = insideLambda ? .aws : .embedded
        }

        let usersTable = value("USERS_TABLE") ?? defaultUsersTable
        guard usersTable.count <= 255, usersTable.count >= 3,
              usersTable.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }) else {
            throw ConfigurationError(variable: "USERS_TABLE", problem: "a DynamoDB table name is 3-255 characters of letters, digits, '_', '-' and '.', got '\(usersTable)'")
        }
        let stateDirectory = value("PAYPULSE_STATE_DIR") ?? defaultStateDirectory
        let caBundlePath = value(caBundleVariable)
        if let caBundlePath, !FileManager.default.isReadableFile(atPath: caBundlePath) {
            throw ConfigurationError(variable: caBundleVariable, problem: "no readable file at '\(caBundlePath)'")
        }

        var aws: AWSConfiguration?
        if store == .aws {
            aws = try awsConfiguration(value)
        }
        let (google, refresh, recoveryDays) = try serviceSettings(value)
        return AppConfiguration(
            store: store, stateDirectory: stateDirectory, usersTable: usersTable, insideLambda: insideLambda, aws: aws,
            google: google, refresh: refresh, disconnectRecoveryDays: recoveryDays, caBundlePath: caBundlePath
        )
    }

    private static func awsConfiguration(_ value: (String) -> String?) throws -> AWSConfiguration {
        guard let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") else {
            throw ConfigurationError(variable: "AWS_REGION", problem: "required when PAYPULSE_STORE=aws (AWS_DEFAULT_REGION is also read)")
        }
        guard region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
            throw ConfigurationError(variable: "AWS_REGION", problem: "not a region name: '\(region)'")
        }
        guard let accessKey = value("AWS_ACCESS_KEY_ID") else {
            throw ConfigurationError(variable: "AWS_ACCESS_KEY_ID", problem: "required when PAYPULSE_STORE=aws")
        }
        guard let secretKey = value("AWS_SECRET_ACCESS_KEY") else {
            throw ConfigurationError(variable: "AWS_SECRET_ACCESS_KEY", problem: "required when PAYPULSE_STORE=aws")
        }
        let credentials = AWSCredentials(accessKeyID: accessKey, secretAccessKey: secretKey, sessionToken: value("AWS_SESSION_TOKEN"))

        var environment: [String: String] = [:]
        for name in ["AWS_ENDPOINT_URL", AWSService.secretsManager.endpointVariable, AWSService.dynamoDB.endpointVariable] {
            guard let endpoint = value(name) else { continue }
            guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://"), endpoint.count > "https://".count else {
                throw ConfigurationError(variable: name, problem: "expected an http(s):// URL, got '\(endpoint)'")
            }
            environment[name] = endpoint
        }
        return AWSConfiguration(
            region: region, credentials: credentials,
            secretsManagerEndpoint: AWSService.secretsManager.endpoint(region: region, environment: environment),
            dynamoDBEndpoint: AWSService.dynamoDB.endpoint(region: region, environment: environment)
        )
    }
}
