#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseApp
import PayPulseConfiguration
import PayPulseDomain

/// A CLI failure with a message.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What every subcommand needs: the same start-up as the function executables (the
/// configuration, the stores it names, the JWT settings), quieter by default.
struct CLIContext {
    let app: AppEnvironment

    var configuration: AppConfiguration { app.configuration }

    /// The JWT settings (the CLI always loads them).
    var authSettings: AuthSettings {
        get throws {
            guard let settings = app.authSettings else { throw CLIError("JWT settings were not loaded") }
            return settings
        }
    }
    var backends: Backends { app.backends }

    /// Reads the environment and opens the configured store. Logs go to stderr at warning
    /// unless `LOG_LEVEL` says otherwise.
    /// - Parameter overrides: variables that win over the process environment (the demo
    ///   points the Google endpoints at its local stand-in).
    static func load(overrides: [String: String] = [:]) async throws -> CLIContext {
        var environment = ProcessInfo.processInfo.environment.merging(overrides) { _, new in new }
        if environment["LOG_LEVEL"] == nil { environment["LOG_LEVEL"] = "warning" }
        return CLIContext(app: try await AppEnvironment.load(label: "paypulse", environment: environment))
    }

    /// Where the store lives, for messages.
    var storeDescription: String {
        switch configuration.store {
        case .embedded: "embedded store in \(configuration.stateDirectory)/"
        case .aws: "AWS (\(configuration.aws?.secretsManagerEndpoint ?? "?"))"
        }
    }
}
