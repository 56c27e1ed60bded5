import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseRuntime

/// `paypulse token USER`: the `fresh-token` function, in process, for one user: the answer
/// PayPulse's Gmail readers get (a usable access token, refreshed at Google when it expires
/// within the refresh window), or its error code.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Print a usable access token for a user, as the fresh-token function answers."
    )

    @Argument(help: "The user id.")
    var userID: String

    func run() async throws {
        let app = try await CLIContext.load().app
        let payload = try JSONCoding.encode(["user_id": userID])
        let result = await StdinRunner.process(input: payload, logger: app.logger, handler: try app.eventHandlers(for: .freshToken))
        if let line = result.errorLine { printToStandardError(line) }
        print(String(decoding: result.output, as: UTF8.self), terminator: "")
        let answer = try? JSONBodyParser.parse(result.output)
        if result.exitCode != 0 || answer?["error"] != nil { throw ExitCode.failure }
    }
}
