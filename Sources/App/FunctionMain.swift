#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The whole `main` of a function executable: build everything once, then answer the
/// event on standard input.
public enum FunctionMain {
    /// Exit status when start-up fails (sysexits' EX_CONFIG).
    public static let exitConfigurationError: Int32 = 78

    /// Runs `name` and returns the process exit status.
    public static func run(_ name: HandlerName) async -> Int32 {
        let handlers: EventHandlers
        let environment: AppEnvironment
        do {
            environment = try await AppEnvironment.load(label: name.rawValue, authenticates: name.authenticates)
            handlers = try await environment.eventHandlers(for: name)
        } catch {
            let line = "\(name.rawValue): start-up failed: \(error)\n"
            _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
            return exitConfigurationError
        }
        return await StdinRunner.run(logger: environment.logger, handlers: handlers)
    }
}
