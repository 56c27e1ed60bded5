#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulsePorts

/// `paypulse users put|show`: seed and read the users table.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Seed and read the users table.", subcommands: [Put.self, Show.self]
    )

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or replace a user.")

        @Option(help: "The user id (the JWT sub).") var id: String
        @Option(help: "The display name.") var name: String
        @Option(help: "The PayPulse login email.") var email: String
        @Option(help: "RFC 3339 creation time (default: now).") var createdOn: String?

        func run() async throws {
            let context = try await CLIContext.load()
            let created = createdOn ?? Date().formatted(.iso8601)
            guard (try? Date(created, strategy: .iso8601)) != nil else {
                throw ValidationError("--created-on must be an RFC 3339 time such as 2024-11-01T10:00:00Z")
            }
            try await context.backends.users.putUser(UserRecord(userID: id, name: name, email: email, createdOn: created))
            print("stored user \(id) in the \(context.storeDescription)")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user.")

        @Argument(help: "The user id.") var id: String

        func run() async throws {
            let context = try await CLIContext.load()
            guard let user = try await context.backends.users.user(id: id) else {
                throw ValidationError("no user '\(id)' in the \(context.storeDescription)")
            }
            print("\(user.userID): \(user.name) <\(user.email)> created \(user.createdOn)")
        }
    }
}
