import ArgumentParser
import PayPulseApp
import PayPulseDomain
import PayPulseGoogle
import PayPulseRuntime
import PayPulseTransport

/// What every `paypulse risc` subcommand takes: the service account's key file, and from it
/// a client of Google's RISC management API (`GOOGLE_RISC_API`) that signs the account's
/// token with the domain's RS256 signer. No store is opened.
struct RISCConnection: ParsableArguments {
    @Option(help: "The service account's JSON key file (a service account with roles/riscconfigs.admin).")
    var serviceAccountKey: String

    /// The client, or a one-line error naming the variable or the key file at fault (never
    /// the key).
    func client() throws -> RISCManagementClient {
        let settings: RISCManagementSettings
        let key: ServiceAccountKey
        do {
            settings = try RISCManagementSettings.read()
        } catch {
            throw CLIError(error.description)
        }
        do {
            key = try ServiceAccountKey(contentsOf: serviceAccountKey)
        } catch {
            throw CLIError(error.description)
        }
        let signingKey: IssuerSigningKey
        do {
            signingKey = try IssuerSigningKey(algorithm: .rs256, pemRepresentation: key.privateKey, id: key.privateKeyID)
        } catch {
            throw CLIError(ServiceAccountKeyError.unusablePrivateKey(file: serviceAccountKey).description)
        }
        return RISCManagementClient(
            apiBase: settings.apiBase, serviceAccount: key.clientEmail, signer: Self.signer(signingKey),
            transport: CurlHTTPClient(configuration: CurlHTTPClient.Configuration(caBundlePath: settings.caBundlePath)),
            logger: LogSetup.makeLogger(label: "paypulse", settings: settings.logging)
        )
    }

    /// Google's claims signed by the domain's minter: header `kid` the key file's
    /// `private_key_id`, `iss` = `sub` = the account.
    static func signer(_ key: IssuerSigningKey) -> ServiceAccountSigner {
        { claims in
            try IssuerTokenMinter(key: key, issuer: claims.email, audience: claims.audience)
                .mint(subject: claims.email, name: nil, email: nil, issuedAt: claims.issuedAt, expiresAt: claims.expiresAt)
        }
    }
}

extension RISCManagementError {
    /// The error as the CLI prints it: `stream:update: Google answered 403 …`.
    func forCLI(_ what: String) -> CLIError { CLIError("\(what): \(description)") }
}
