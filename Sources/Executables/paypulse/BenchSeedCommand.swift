#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseDomain
import PayPulsePorts

/// `paypulse bench-seed users|grants`: what the benchmark (scripts/bench) needs in a store
/// before a measurement, written through the configured store's own adapters (users table,
/// token sets with their listing tags, sealed on the DynamoDB token store), so no script
/// writes a token set by hand.
struct BenchSeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-seed", abstract: "Seed the configured store for the benchmark: users, or due token sets.",
        subcommands: [Users.self, Grants.self]
    )

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store each user as 'Bench ID' <ID@paypulse.example>.")

        @Argument(help: "The user ids.") var ids: [String]

        func run() async throws {
            let context = try await CLIContext.load()
            for id in ids {
                try await context.backends.users.putUser(
                    UserRecord(userID: id, name: "Bench \(id)", email: "\(id)@paypulse.example", createdOn: "2024-11-01T10:00:00Z")
                )
            }
            print("stored \(ids.count) user(s) in the \(context.storeDescription)")
        }
    }

    struct Grants: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store COUNT token sets as a refresh leaves them: verified, written now, expiring in --expires-in seconds.",
            discussion: """
                User i (from 0) is PREFIX followed by i in six digits, with refresh token 1//rt-PREFIXi and address \
                benchi@gmail.com; its access token is ya29.old. A refresh window of --expires-in seconds or more makes \
                every one due.
                """
        )

        @Option(help: "How many token sets.") var count: Int
        @Option(help: "The user ids' prefix.") var prefix = "bench-"
        @Option(help: "Seconds from now to each access token's expiry (Google's usual lifetime).") var expiresIn = 3599
        @Option(help: "Writes in flight at once.") var concurrency = 4

        func validate() throws {
            guard count >= 0, expiresIn > 0, concurrency > 0 else {
                throw ValidationError("--count must not be negative; --expires-in and --concurrency must be positive.")
            }
        }

        func run() async throws {
            let context = try await CLIContext.load()
            let grants = try context.backends.grants
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let (prefix, expiresIn) = (prefix, expiresIn)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    if index >= concurrency { try await group.next() }
                    group.addTask {
                        let number = String(index).leftPadded(to: 6)
                        let tokenSet = GmailTokenSet(
                            accessToken: "ya29.old", refreshToken: "1//rt-\(prefix)\(number)", expiresAt: now.addingTimeInterval(Double(expiresIn)),
                            scope: "https://www.googleapis.com/auth/gmail.readonly", googleEmail: "bench\(number)@gmail.com",
                            verified: true, verifiedAt: now, connectedAt: now, updatedAt: now
                        )
                        do {
                            try await grants.create(prefix + number, value: try tokenSet.jsonString(), attributes: TokenSetTags.tags(for: tokenSet))
                        } catch let error as StoreError where error == .alreadyExists {
                            // A create the client retried after it had landed.
                        }
                    }
                }
                try await group.waitForAll()
            }
            print("stored \(count) due token set(s) in the \(context.storeDescription)")
        }
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
