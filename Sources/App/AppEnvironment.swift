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
    /// The JWT settings; `nil` for a function that serves no API route (token-refresh
    /// needs no JWT key, so none is required of it).
    public let authSettings: AuthSettings?
    /// The ports wired to their adapters.
    public let backends: Backends
    /// The process's logger (stderr).
    public let logger: Logger
    /// The one HTTP client of the process (AWS and Google calls share its connections).
    public let transport: any HTTPTransport

    /// Reads the environment and builds the adapters.
    /// - Parameters:
    ///   - label: The logger label, e.g. the executable's name.
    ///   - environment: The variables to read (the process environment by default).
    /// - Throws: ``ConfigurationError`` or `ConfigurationError` naming the bad variable,
    ///   or a `StoreError` when the embedded store cannot be opened.
    public static func load(
        label: String, environment: [String: String] = ProcessInfo.processInfo.environment, authenticates: Bool = true
    ) async throws -> AppEnvironment {
        let logger = LogSetup.makeLogger(label: label, environment: environment)
        let configuration = try AppConfiguration.fromEnvironment(environment)
        let transport = CurlHTTPClient(configuration: CurlHTTPClient.Configuration(caBundlePath: configuration.caBundlePath))
        let backends = try Backends.make(configuration: configuration, transport: transport, logger: logger)
        let secrets = backends.secrets
        guard authenticates else {
            return AppEnvironment(configuration: configuration, authSettings: nil, backends: backends, logger: logger, transport: transport)
        }
        let authSettings = try await AuthSettings.fromEnvironment(environment, insideLambda: configuration.insideLambda) { id in
            try await secrets.getSecretValue(name: id, stage: .current).string
        }
        if authSettings.usesDevelopmentKey {
            logger.notice("JWTs are verified with the documented development key (PAYPULSE_JWT_SECRET is not set)")
        }
        return AppEnvironment(configuration: configuration, authSettings: authSettings, backends: backends, logger: logger, transport: transport)
    }
}
