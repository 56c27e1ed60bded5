import Logging
import PayPulseConfiguration
import PayPulseTransport

/// What every subcommand needs: the configuration read from the environment, the
/// backends it names, and a logger on standard error.
struct CLIContext {
    let configuration: AppConfiguration
    let backends: Backends
    let logger: Logger

    /// Reads the environment and opens the configured store.
    static func load() throws -> CLIContext {
        let configuration = try AppConfiguration.fromProcessEnvironment()
        var logger = Logger(label: "paypulse.cli") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let backends = try Backends.make(configuration: configuration, transport: CurlHTTPClient(), logger: logger)
        return CLIContext(configuration: configuration, backends: backends, logger: logger)
    }

    /// Where the store lives, for messages.
    var storeDescription: String {
        switch configuration.store {
        case .embedded: "embedded store in \(configuration.stateDirectory)/"
        case .aws: "AWS (\(configuration.aws?.secretsManagerEndpoint ?? "?"))"
        }
    }
}
