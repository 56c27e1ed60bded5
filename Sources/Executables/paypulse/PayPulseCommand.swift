import ArgumentParser

/// The developer CLI: inspect and seed the configured store, and run the demo.
@main
struct PayPulseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paypulse",
        abstract: "PayPulse Gmail Connect developer tools.",
        discussion: "Uses the store the environment names (PAYPULSE_STORE; embedded under PAYPULSE_STATE_DIR by default).",
        subcommands: [
            ServeCommand.self,
            DemoCommand.self, InvokeCommand.self, TokenCommand.self, JWTCommand.self, SecretsCommand.self, UsersCommand.self, ClientIDCommand.self,
            SeedCommand.self, SetupCommand.self, MigrateCommand.self, MatchResponseCommand.self, IAMCommand.self, DeployFactsCommand.self, FakeGoogleCommand.self,
            BenchSeedCommand.self, RISCCommand.self, EventsCommand.self,
        ]
    )
}
