#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulsePorts

/// `paypulse seed --manifest events/manifest.json --client-id ID`: writes what no function
/// writes, through the configured store's own adapter: the manifest's user and the Google
/// client-ID secret. The bundle proofs run it once the first function has created the
/// embedded store.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed", abstract: "Seed the configured store with the events manifest's user and the Google client ID."
    )

    @Option(help: "The events manifest whose `user` is stored.") var manifest: String = "events/manifest.json"
    @Option(help: "An OAuth client ID to store in the client-ID secret; repeat it for several, the default first.")
    var clientID: [String]

    func validate() throws {
        guard !clientID.isEmpty else { throw ValidationError("give at least one --client-id") }
    }

    /// The part of `events/manifest.json` seeded here.
    private struct Manifest: Decodable {
        struct User: Decodable {
            let userID, name, email, createdOn: String
            enum CodingKeys: String, CodingKey { case userID = "user_id", name, email, createdOn = "created_on" }
        }
        let user: User
    }

    func run() async throws {
        let user = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifest))).user
        let context = try await CLIContext.load()
        try await context.backends.users.putUser(UserRecord(userID: user.userID, name: user.name, email: user.email, createdOn: user.createdOn))
        try await ClientIDCommand.store(clientID, in: context)
        print("seeded user \(user.userID) and the client ID in the \(context.storeDescription)")
    }
}
