#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseConfiguration
import PayPulseDomain
import PayPulsePorts
import PayPulseRuntime
import PayPulseTransport

/// Everything a process builds once at start, before serving any event: configuration,
/// logger, the store adapters it names, and the JWT settings.
public struct AppEnvironment: Sendable {
    /// The configuration read from the environment.
    public let configuration: AppConfiguration
    /// The JWT settings.
    public let authSettings: AuthSettings
    /// The ports wired to their adapters.
    public let backends: Backends
    /// The process's logger (stderr).
    public let logger: Logger

    /// Reads the environment and builds the adapters.
    /// - Parameters:
    ///   - label: The logger label, e.g. the executable's name.
    ///   - environment: The variables to read (the process environment by default).
    /// - Throws: ``ConfigurationError`` or `AuthConfigurationError` naming the bad variable,
    ///   or a `StoreError` when the embedded store cannot be opened.
    public static func load(label: String, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> AppEnvironment {
        let logger = LogSetup.makeLogger(label: label, environment: environment)
        let configuration = try AppConfiguration.fromEnvironment(environment)
        let backends = try Backends.make(configuration: configuration, transport: CurlHTTPClient(), logger: logger)
        let secrets = backends.secrets
        let authSettings = try await AuthSettings.fromEnvironment(environment, insideLambda: configuration.insideLambda) { id in
            try await secrets.getSecretValue(name: id, stage: .current).string
        }
        if authSettings.usesDevelopmentKey {
            logger.notice("JWTs are verified with the documented development key (PAYPULSE_JWT_SECRET is not set)")
        }
        return AppEnvironment(configuration: configuration, authSettings: authSettings, backends: backends, logger: logger)
    }
}
