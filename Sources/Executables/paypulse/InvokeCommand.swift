#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseRuntime

/// `paypulse invoke HANDLER EVENT_FILE`: one event through one function, in process, as
/// the function's executable would answer it on stdin.
struct InvokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoke", abstract: "Run one event file through a function and print its response."
    )

    @Argument(help: "The function: \(HandlerName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var handler: String

    @Argument(help: "A JSON event file (API Gateway payload 1.0 or 2.0).")
    var eventFile: String

    func run() async throws {
        guard let name = HandlerName(rawValue: handler) else {
            throw ValidationError("unknown function '\(handler)'; expected one of \(HandlerName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let event = FileManager.default.contents(atPath: eventFile) else {
            throw ValidationError("cannot read \(eventFile)")
        }
        let app = try await CLIContext.load().app
        let result = await StdinRunner.process(input: Array(event), logger: app.logger, handler: try app.eventHandlers(for: name))
        if let line = result.errorLine { printToStandardError(line) }
        print(String(decoding: result.output, as: UTF8.self), terminator: "")
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}
