#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseConfiguration
import PayPulseHandlers
import PayPulsePorts

/// `paypulse secrets list|show`: the stored Gmail token sets, tokens redacted.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets", abstract: "Inspect stored Gmail token sets (token values are redacted).",
        subcommands: [List.self, Show.self]
    )

    /// The name prefix of every user's token set.
    static let prefix = "gmail/user/"

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List token-set secrets with their tags.")

        @Flag(help: "Include secrets scheduled for deletion.")
        var includeDeleted = false

        func run() async throws {
            let context = try await CLIContext.load()
            var token: String?
            var count = 0
            repeat {
                let page = try await context.backends.secrets.listSecrets(
                    namePrefix: SecretsCommand.prefix, includePlannedDeletion: includeDeleted, maxResults: 100, nextToken: token
                )
                for secret in page.secrets {
                    let tags = secret.tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                    let deleted = secret.deletedDate.map { " (scheduled for deletion since \($0.formatted(.iso8601)))" } ?? ""
                    print("\(secret.name)\(deleted)  \(tags)")
                    count += 1
                }
                token = page.nextToken
            } while token != nil
            print("\(count) secret(s) in the \(context.storeDescription)")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user's token set, tokens redacted.")

        @Argument(help: "The user id (the JWT sub).")
        var userID: String

        func run() async throws {
            let context = try await CLIContext.load()
            let name = SecretsCommand.prefix + userID
            let description = try await context.backends.secrets.describeSecret(name: name)
            print("name: \(name)")
            print("tags: \(description.tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
            if let deleted = description.deletedDate {
                print("scheduled for deletion since \(deleted.formatted(.iso8601)); restore by connecting again")
                return
            }
            let value = try await context.backends.secrets.getSecretValue(name: name, stage: .current)
            print("version: \(value.versionID) \(value.stages.map(\.rawValue).joined(separator: ","))")
            if let document = try? JSONDecoder().decode(JSONValue.self, from: Data(value.string.utf8)) {
                print(document.redactingTokens().prettyText)
            } else {
                print("<value is not JSON: \(value.string.utf8.count) bytes, not shown>")
            }
        }
    }
}
