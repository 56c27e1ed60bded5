import Logging
import PayPulseApp
import PayPulseDomain
import PayPulseRuntime

/// A CLI failure with a message.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What every subcommand needs: the same start-up as the function executables (the
/// configuration, the stores it names, the JWT settings), quieter by default.
struct CLIContext {
    let app: Assembly

    var configuration: AppConfiguration { app.configuration }

    /// The JWT settings (the CLI always loads them).
    var authSettings: AuthSettings {
        get throws {
            guard let settings = app.authSettings else { throw CLIError("JWT settings were not loaded") }
            return settings
        }
    }
    var backends: Backends { app.backends }

    /// Reads the configuration and opens the configured store. Logs go to stderr at
    /// warning unless `LOG_LEVEL` says otherwise.
    /// - Parameter overrides: variables that win over the process environment (the demo
    ///   points the Google endpoints at its local stand-in).
    static func load(overrides: [String: String] = [:]) async throws -> CLIContext {
        let reading = AppConfiguration.read(overrides: overrides, defaultLogLevel: .warning)
        let logger = LogSetup.makeLogger(label: "paypulse", settings: reading.process.logging)
        return CLIContext(app: try await Assembly.build(configuration: try reading.configuration.get(), logger: logger))
    }

    /// Where the store lives, for messages.
    var storeDescription: String {
        switch configuration.store {
        case .embedded: "embedded store in \(configuration.stateDirectory)/"
        case .aws: "AWS (\(configuration.aws?.secretsManagerEndpoint ?? "?"))"
        case .dynamodb: "DynamoDB table \(configuration.tokenTable?.table ?? "?") (\(configuration.aws?.dynamoDBEndpoint ?? "?"))"
        }
    }
}
