#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseCoding
import PayPulseHandlers
import PayPulsePorts

/// `paypulse secrets list|show`: the stored Gmail token sets (grants), tokens redacted.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets", abstract: "Inspect stored Gmail token sets (token values are redacted).",
        subcommands: [List.self, Show.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users' token sets with their listing tags.")

        @Flag(help: "Include token sets scheduled for deletion.")
        var includeDeleted = false

        func run() async throws {
            let context = try await CLIContext.load()
            var cursor: String?
            var count = 0
            repeat {
                let page = try await context.backends.grants.list(userPrefix: "", includeDeleted: includeDeleted, cursor: cursor, limit: 100)
                for grant in page.grants {
                    let tags = grant.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                    let deleted = grant.deletionDate.map { " (scheduled for deletion since \($0.formatted(.iso8601)))" } ?? ""
                    print("\(grant.user)\(deleted)  \(tags)")
                    count += 1
                }
                cursor = page.cursor
            } while cursor != nil
            print("\(count) token set(s) in the \(context.storeDescription)")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one user's token set, tokens redacted.")

        @Argument(help: "The user id (the JWT sub).")
        var userID: String

        func run() async throws {
            let context = try await CLIContext.load()
            let state = try await context.backends.grants.state(of: userID)
            print("user: \(userID)")
            print("tags: \(state.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
            if let deleted = state.deletionDate {
                print("scheduled for deletion since \(deleted.formatted(.iso8601)); restore by connecting again")
                return
            }
            let value = try await context.backends.grants.read(userID)
            print("version: \(value.version)")
            if let document = try? JSONDecoder().decode(JSONValue.self, from: Data(value.value.utf8)) {
                print(document.redactingTokens().prettyText)
            } else {
                print("<value is not JSON: \(value.value.utf8.count) bytes, not shown>")
            }
        }
    }
}
