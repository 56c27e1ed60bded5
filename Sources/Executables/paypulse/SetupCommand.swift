import ArgumentParser
import PayPulseAWS
import PayPulseApp

/// `paypulse setup --store dynamodb`: creates the DynamoDB tables the configured store needs
/// in the account and endpoint the environment names (the users table, the security events
/// table keyed by `jti` and the request quotas table keyed by `user_id`, each with its time to
/// live on `expires_at`; with `dynamodb`, the token table
/// keyed by `user_id` with its time-to-live attribute), leaving existing ones alone.
struct SetupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup", abstract: "Create the tables a store needs; an existing token table gains the indexes it lacks."
    )

    @Option(help: "The store to set up (overrides PAYPULSE_STORE): embedded, aws or dynamodb.")
    var store: String?

    func run() async throws {
        let context = try await CLIContext.load(overrides: store.map { ["PAYPULSE_STORE": $0] } ?? [:])
        var made: [String] = []
        if let users = try context.backends.users as? DynamoDBUserDirectory {
            try await users.createTableIfNeeded()
            made.append("users table \(context.configuration.usersTable)")
        }
        if let grants = try context.backends.grants as? DynamoDBGrantStore, let tokenTable = context.configuration.tokenTable {
            try await grants.createTableIfNeeded()
            made.append("token table \(tokenTable.table) (time to live on purge_at)")
        }
        if let ledger = try context.app.securityEventLedger() as? DynamoDBSecurityEventLedger {
            try await ledger.createTableIfNeeded()
            made.append("security events table \(context.configuration.securityEventsTable) (time to live on expires_at)")
        }
        if let quota = try context.app.requestQuota() as? DynamoDBRequestQuota {
            try await quota.createTableIfNeeded()
            made.append("request quotas table \(context.configuration.requestQuotasTable) (time to live on expires_at)")
        }
        print(made.isEmpty ? "\(context.storeDescription): nothing to create" : "\(context.storeDescription): ready: " + made.joined(separator: ", "))
    }
}
