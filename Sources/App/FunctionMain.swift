#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Logging
import PayPulseHandlers
import PayPulseRuntime
import PayPulseTransport

/// The whole `main` of a function executable: read the configuration, build everything
/// once, then answer events, from the Lambda Runtime API when `AWS_LAMBDA_RUNTIME_API` is
/// set, else the one event on standard input.
package enum FunctionMain {
    /// Exit status when start-up fails (sysexits' EX_CONFIG).
    package static let exitConfigurationError: Int32 = 78
    /// Exit status when the Runtime API could no longer be talked to.
    package static let exitRuntimeAPIFailed: Int32 = 1

    /// A function executable's `main`: runs `name` with the process environment and exits
    /// with its status.
    ///
    /// The main thread only waits. An async `main` would park it with `dispatch_main()`,
    /// which ends the thread with `pthread_exit`, a forced unwind of its stack; in the
    /// bundles' static executable the first unwind sorts every frame description of the
    /// binary: 275 M instructions, where the whole of a cold store-tokens is 10 M (callgrind).
    package static func main(_ name: HandlerName) -> Never {
        Task.detached { exit(await run(name)) }
        let never = DispatchSemaphore(value: 0)
        while true { never.wait() }
    }

    /// Runs `name` with the process environment and returns the exit status.
    package static func run(_ name: HandlerName) async -> Int32 {
        await run(name, reading: AppConfiguration.read())
    }

    /// Runs `name` with a configuration already read (tests pass their own).
    package static func run(
        _ name: HandlerName, reading: (process: ProcessSettings, configuration: Result<AppConfiguration, ConfigurationError>)
    ) async -> Int32 {
        let logger = LogSetup.makeLogger(label: name.rawValue, settings: reading.process.logging)
        // A function answering one request at a time with a few sequential calls runs a
        // transfer on the calling thread, sparing two thread hand-offs per call (about a
        // fifth of a warm invocation's CPU); a refresh run, many transfers at once, never.
        let inline = name.servesOneRequestAtATime
        // Its own client: the long poll never competes with the handlers' pool.
        let runtimeAPI = reading.process.runtimeAPI.map {
            HTTPLambdaRuntimeAPI(endpoint: $0, transport: CurlHTTPClient(configuration: .init(inlineTransfers: inline)))
        }
        let handlers: EventHandlers
        do {
            let assembly = try Assembly.build(configuration: try reading.configuration.get(), logger: logger, inlineTransfers: inline)
            handlers = try await assembly.eventHandlers(for: name)
        } catch {
            let message = "start-up failed: \(error)"
            writeErrorLine("\(name.rawValue): \(message)")
            if let runtimeAPI { await LambdaLoop.reportInitError(message, api: runtimeAPI, logger: logger) }
            return exitConfigurationError
        }
        guard let runtimeAPI else { return await StdinRunner.run(logger: logger, handler: handlers) }
        do {
            try await LambdaLoop.run(api: runtimeAPI, handler: handlers, logger: logger)
            return 0
        } catch {
            logger.critical("the Runtime API failed; exiting", metadata: ["reason": "\(error)"])
            return exitRuntimeAPIFailed
        }
    }

    /// One line on standard error, written before any event is served.
    private static func writeErrorLine(_ line: String) {
        _ = (line + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}

/// The functions this backend deploys, by executable name.
package enum HandlerName: String, Sendable, CaseIterable {
    /// `POST /v1/auth/gmail-tokens`.
    case storeTokens = "store-tokens"
    /// `GET /v1/user/me`.
    case userProfile = "user-profile"
    /// The scheduled refresh of expiring grants.
    case tokenRefresh = "token-refresh"
    /// `DELETE /v1/auth/gmail-tokens`.
    case disconnect
    /// A usable access token for one user, invoked directly by PayPulse's Gmail readers.
    case freshToken = "fresh-token"
    /// `POST /v1/google/security-events`: Google's Cross-Account Protection receiver.
    case securityEvents = "security-events"

    /// Whether one invocation makes its few calls one after another (everything but a
    /// refresh run, which keeps many transfers in flight).
    package var servesOneRequestAtATime: Bool { self != .tokenRefresh }
}
