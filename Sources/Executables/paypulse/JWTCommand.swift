#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import Logging
import PayPulseApp
import PayPulseDomain
import PayPulseLocalServer

/// `paypulse jwt`: prints a development token for a user (one line per `--sub`). HS256 (the
/// default) signs with the key the environment configures (PAYPULSE_JWT_SECRET,
/// PAYPULSE_JWT_SECRET_ID read from the configured store, or the documented development
/// key): the one JWT signer of the scripts, the bundle proofs, the contract tests and the
/// benchmark. RS256 / ES256 sign as the local issuer of `paypulse serve --issuer` on the same
/// state directory.
struct JWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Mint a PayPulse access token for local testing (HS256, or the local issuer's RS256 / ES256).",
        discussion: """
            HS256: issuer and audience come from PAYPULSE_JWT_ISSUER / PAYPULSE_JWT_AUDIENCE (defaults paypulse / paypulse-api). \
            RS256 / ES256: signed with the key of `paypulse serve --issuer` kept in PAYPULSE_STATE_DIR/\(LocalIssuer.fileName); \
            the issuer is that server's URL, the audience PAYPULSE_JWT_AUDIENCE (default paypulse-api).
            """
    )

    /// The signing algorithms offered.
    enum Algorithm: String, ExpressibleByArgument, CaseIterable {
        case hs256 = "HS256", rs256 = "RS256", es256 = "ES256"

        init?(argument: String) { self.init(rawValue: argument.uppercased()) }
    }

    @Option(help: "The user id (the token's sub): 1-128 of A-Z a-z 0-9 _+=.@-; repeat it for one token per user, one a line.")
    var sub: [String]
    @Option(help: "The name claim.") var name: String?
    @Option(help: "The email claim.") var email: String?
    @Option(help: "Lifetime in seconds.") var ttl: Int = 3600
    @Option(help: "RFC 3339 expiry time, instead of --ttl (e.g. 2030-01-01T00:00:00Z).") var expiresAt: String?
    @Option(help: "HS256 (the configured key), or RS256 / ES256 (the local issuer of `paypulse serve --issuer`).")
    var alg: Algorithm = .hs256

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
        let now = Date()
        let expiry = try expiresAt.map { try Date($0, strategy: .iso8601) } ?? now.addingTimeInterval(TimeInterval(ttl))
        let minter = try await self.minter()
        for subject in sub {
            print(try minter.mint(subject: subject, name: name, email: email, issuedAt: now, expiresAt: expiry))
        }
    }

    private func minter() async throws -> any TokenMinter {
        let algorithm: AsymmetricAlgorithm
        switch alg {
        case .hs256:
            let settings = try await CLIContext.load().authSettings
            guard settings.mode == .hs256 else { throw CLIError(DevelopmentTokenMinter.noKey(settings.mode)) }
            if settings.usesDevelopmentKey {
                printToStandardError("paypulse: signing with the documented development key; set PAYPULSE_JWT_SECRET for anything shared")
            }
            return try DevelopmentTokenMinter(settings: settings)
        case .rs256: algorithm = .rs256
        case .es256: algorithm = .es256
        }
        // No store is opened: the issuer's file is all this needs.
        let configuration = try AppConfiguration.read(defaultLogLevel: .warning).configuration.get()
        do {
            let issuer = try LocalIssuer.load(stateDirectory: configuration.stateDirectory, insideLambda: configuration.insideLambda)
            return issuer.minter(algorithm, audience: configuration.jwt.audience)
        } catch {
            throw CLIError(error.description)
        }
    }
}
