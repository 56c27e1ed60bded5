import ArgumentParser

/// The developer CLI.
@main
struct PayPulseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "paypulse", abstract: "PayPulse Gmail Connect developer tools.")
}
