#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import PayPulseApp
import PayPulseDomain

/// `paypulse jwt`: prints a development token for a user (one line per `--sub`), signed
/// with the key the environment configures (PAYPULSE_JWT_SECRET, PAYPULSE_JWT_SECRET_ID
/// read from the configured store, or the documented development key). The one JWT signer
/// of the scripts: the bundle proofs, the contract tests and the benchmark sign with it.
struct JWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Mint a PayPulse access token (HS256) for local testing.",
        discussion: "Issuer and audience come from PAYPULSE_JWT_ISSUER / PAYPULSE_JWT_AUDIENCE (defaults paypulse / paypulse-api)."
    )

    @Option(help: "The user id (the token's sub): 1-128 of A-Z a-z 0-9 _+=.@-; repeat it for one token per user, one a line.")
    var sub: [String]
    @Option(help: "The name claim.") var name: String?
    @Option(help: "The email claim.") var email: String?
    @Option(help: "Lifetime in seconds.") var ttl: Int = 3600
    @Option(help: "RFC 3339 expiry time, instead of --ttl (e.g. 2030-01-01T00:00:00Z).") var expiresAt: String?

    func validate() throws {
        guard !sub.isEmpty, sub.allSatisfy({ UserID($0) != nil }) else {
            throw ValidationError("--sub must be 1-128 characters of letters, digits and _+=.@- (not '.' or '..')")
        }
        guard ttl > 0 else { throw ValidationError("--ttl must be a positive number of seconds") }
        if let expiresAt, (try? Date(expiresAt, strategy: .iso8601)) == nil {
            throw ValidationError("--expires-at must be an RFC 3339 time such as 2030-01-01T00:00:00Z")
        }
    }

    func run() async throws {
        let settings = try await CLIContext.load().authSettings
        if settings.usesDevelopmentKey {
            printToStandardError("paypulse: signing with the documented development key; set PAYPULSE_JWT_SECRET for anything shared")
        }
        let now = Date()
        let expiry = try expiresAt.map { try Date($0, strategy: .iso8601) } ?? now.addingTimeInterval(TimeInterval(ttl))
        let minter = try DevelopmentTokenMinter(settings: settings)
        for subject in sub {
            print(try minter.mint(subject: subject, name: name, email: email, issuedAt: now, expiresAt: expiry))
        }
    }
}
