import Foundation
import PayPulseDomain
import PayPulseGoogle
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport

/// What the RISC management tests share: a fake that knows a generated service account,
/// the key file Google would have handed out, and a client signing as `paypulse risc` does.
struct RISCFixture {
    let fake: FakeGoogleServer
    let account: FakeGoogleServiceAccount
    /// The key file on disk (0600), as the CLI reads it.
    let keyFile: URL
    /// The key file read back by the adapter.
    let key: ServiceAccountKey

    /// A receiver on loopback, which the fake (itself on loopback) accepts over plain HTTP.
    static let receiver = "http://127.0.0.1:9/v1/google/security-events"

    /// A fake with one generated service account (with the role unless `permitted` is false).
    init(permitted: Bool = true) throws {
        fake = try FakeGoogleServer()
        account = try FakeGoogleServiceAccount.generate(permitted: permitted)
        fake.risc.addServiceAccount(account)
        guard let keyFileText = account.keyFile else { throw CocoaError(.fileReadCorruptFile) }
        keyFile = try Self.write(keyFileText)
        key = try ServiceAccountKey(contentsOf: keyFile.path)
    }

    /// The domain's signer over the key file's key, as the CLI composes it.
    var signingKey: IssuerSigningKey {
        get throws { try IssuerSigningKey(algorithm: .rs256, pemRepresentation: key.privateKey, id: key.privateKeyID) }
    }

    /// A client of the fake; `signer` and `now` replace the CLI's to forge tokens.
    func client(
        signer: ServiceAccountSigner? = nil, apiBase: String? = nil, now: @escaping @Sendable () -> Date = { Date() }, logs: LogCapture = LogCapture()
    ) throws -> RISCManagementClient {
        RISCManagementClient(
            apiBase: apiBase ?? fake.riscAPIBase, serviceAccount: key.clientEmail, signer: try signer ?? Self.signer(signingKey),
            transport: CurlHTTPClient(), retry: .none, logger: logs.logger, now: now
        )
    }

    /// The CLI's composition (`RISCConnection.signer`): Google's claims through the domain's minter.
    static func signer(_ key: IssuerSigningKey, issuer: String? = nil, audience: String? = nil) -> ServiceAccountSigner {
        { claims in
            try IssuerTokenMinter(key: key, issuer: issuer ?? claims.email, audience: audience ?? claims.audience)
                .mint(subject: claims.email, name: nil, email: nil, issuedAt: claims.issuedAt, expiresAt: claims.expiresAt)
        }
    }

    /// Writes `text` to a new 0600 file in a fresh directory.
    static func write(_ text: String, name: String = "service-account.json") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("risc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }

    /// The key file's JSON object, to take apart in tests of bad files.
    var keyFileObject: [String: Any] {
        get throws {
            guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: keyFile)) as? [String: Any] else { throw CocoaError(.fileReadCorruptFile) }
            return object
        }
    }

    func stop() {
        fake.stop()
        try? FileManager.default.removeItem(at: keyFile.deletingLastPathComponent())
    }
}
