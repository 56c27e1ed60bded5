import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseConfiguration
import PayPulseDomain
import PayPulsePorts
import PayPulseSecretGrants

/// `paypulse migrate --from secretsmanager --to dynamodb`: copies every grant between the
/// two AWS token stores with ``GrantMigration`` and prints its report as JSON. Run with
/// `PAYPULSE_STORE=dynamodb` (the table and KMS key come from its variables); `--from
/// dynamodb --to secretsmanager` copies back.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy every grant between Secrets Manager and the DynamoDB token table, idempotently, verifying each copy.",
        discussion: "Run before switching PAYPULSE_STORE, and once more right before the switch; never once writers use the target."
    )

    enum Store: String, ExpressibleByArgument, CaseIterable {
        case secretsmanager, dynamodb
    }

    @Option(help: "Where the grants are now: secretsmanager or dynamodb.")
    var from: Store

    @Option(help: "Where they go: dynamodb or secretsmanager.")
    var to: Store

    @Option(help: "Only the users whose id starts with this.")
    var userPrefix = ""

    @Option(help: "Grants copied at once.")
    var concurrency = 8

    func validate() throws {
        guard from != to else { throw ValidationError("--from and --to must differ") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 64") }
    }

    func run() async throws {
        let context = try await CLIContext.load()
        guard context.configuration.store == .dynamodb else {
            throw CLIError("migrate needs PAYPULSE_STORE=dynamodb (with TOKENS_TABLE and PAYPULSE_KMS_KEY_ID) to reach both stores")
        }
        let secretsManager: any GrantStore = SecretsManagerGrantStore(context.backends.secrets)
        let dynamoDB = context.backends.grants
        // A deletion carried over gets a disconnect's window (DISCONNECT_RECOVERY_DAYS).
        let window = context.configuration.disconnectRecoveryDays
        let migration = from == .secretsmanager
            ? GrantMigration(from: secretsManager, to: dynamoDB, userPrefix: userPrefix, concurrency: concurrency, recoveryWindowDays: window)
            : GrantMigration(from: dynamoDB, to: secretsManager, userPrefix: userPrefix, concurrency: concurrency, recoveryWindowDays: window)
        let report = try await migration.run()
        print(try JSONCoding.string(report))
        if !report.complete { throw ExitCode.failure }
    }
}
