#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseRuntime
import PayPulseTransport
#if canImport(Glibc)
import Glibc
#endif

/// The whole `main` of a function executable: build everything once, then answer events,
/// from the Lambda Runtime API when `AWS_LAMBDA_RUNTIME_API` is set, else the one event
/// on standard input.
public enum FunctionMain {
    /// Exit status when start-up fails (sysexits' EX_CONFIG).
    public static let exitConfigurationError: Int32 = 78
    /// Exit status when the Runtime API could no longer be talked to.
    public static let exitRuntimeAPIFailed: Int32 = 1

    /// Runs `name` and returns the process exit status.
    public static func run(_ name: HandlerName, environment variables: [String: String] = ProcessInfo.processInfo.environment) async -> Int32 {
        let runtimeAPI = variables[HTTPLambdaRuntimeAPI.endpointVariable].flatMap { $0.isEmpty ? nil : $0 }.map {
            // Its own client: the long poll never competes with the handlers' pool.
            HTTPLambdaRuntimeAPI(endpoint: $0, transport: CurlHTTPClient())
        }
        let handlers: EventHandlers
        let environment: AppEnvironment
        do {
            environment = try await AppEnvironment.load(label: name.rawValue, environment: variables, authenticates: name.authenticates)
            handlers = try await environment.eventHandlers(for: name)
        } catch {
            let message = "start-up failed: \(error)"
            writeErrorLine("\(name.rawValue): \(message)")
            if let runtimeAPI {
                await LambdaLoop.reportInitError(message, api: runtimeAPI, logger: LogSetup.makeLogger(label: name.rawValue, environment: variables))
            }
            return exitConfigurationError
        }
        guard let runtimeAPI else { return await StdinRunner.run(logger: environment.logger, handlers: handlers) }
        do {
            try await LambdaLoop.run(api: runtimeAPI, handlers: handlers, logger: environment.logger)
            return 0
        } catch {
            environment.logger.critical("the Runtime API failed; exiting", metadata: ["reason": "\(error)"])
            return exitRuntimeAPIFailed
        }
    }

    /// One line on standard error, written before any logger exists.
    private static func writeErrorLine(_ line: String) {
        _ = (line + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
