import Foundation
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulseEmbedded

/// `paypulse serve --issuer`: a development identity provider on the server itself, so the
/// app's `jwks` loop runs without a real one. It holds an RS256 and an ES256 key and
/// publishes them as an OpenID Connect issuer does; the server's own functions verify
/// under them (`PAYPULSE_AUTH_MODE=jwks`), the console and `paypulse jwt --alg` sign with them.
///
/// The keys live in the state directory (``prepare(url:stateDirectory:insideLambda:logger:)``),
/// so a token minted by another process verifies here.
package struct LocalIssuer: Sendable {
    /// Where the discovery document is served.
    package static let discoveryPath = "/.well-known/openid-configuration"
    /// Where the key set is served.
    package static let keySetPath = "/.well-known/jwks.json"

    /// The issuer (`iss`): the server's own base URL, e.g. `http://127.0.0.1:8080`.
    package let url: String
    /// The RS256 key.
    package let rs256: IssuerSigningKey
    /// The ES256 key.
    package let es256: IssuerSigningKey

    /// Creates an issuer from its keys.
    init(url: String, rs256: IssuerSigningKey, es256: IssuerSigningKey) {
        self.url = url
        self.rs256 = rs256
        self.es256 = es256
    }

    /// The key set's URL (`jwks_uri`, `PAYPULSE_JWT_JWKS_URL`).
    package var keySetURL: String { url + Self.keySetPath }

    /// A minter of this issuer's tokens for `audience`, signing with `algorithm`'s key.
    package func minter(_ algorithm: AsymmetricAlgorithm, audience: String) -> IssuerTokenMinter {
        IssuerTokenMinter(key: algorithm == .rs256 ? rs256 : es256, issuer: url, audience: audience)
    }

    /// `GET /.well-known/openid-configuration`: the issuer, its key set and its algorithms
    /// (OpenID Connect Discovery 1.0 §3; no authorization endpoint: tokens come from
    /// `paypulse jwt` and the console, not from a sign-in).
    func discoveryDocument() throws -> [UInt8] {
        struct Discovery: Encodable {
            let issuer: String
            let jwks_uri: String
            let id_token_signing_alg_values_supported: [String]
        }
        return try JSONCoding.encode(Discovery(
            issuer: url, jwks_uri: keySetURL, id_token_signing_alg_values_supported: [rs256, es256].map(\.algorithm.rawValue)
        ))
    }

    /// `GET /.well-known/jwks.json`: both public keys.
    func keySetDocument() throws -> [UInt8] {
        try IssuerSigningKey.keySetDocument([rs256, es256])
    }
}

extension LocalIssuer {
    /// The local issuer's file in the state directory (0600): both private keys, and the
    /// URL of the last `paypulse serve --issuer` on that directory (`serve --port 0` picks
    /// one), so that `paypulse jwt --alg` signs as that server's issuer.
    package static let fileName = "local-issuer.json"

    /// The file's one document: one encoder, one decoder.
    struct StateDocument: Codable, Equatable {
        static let currentVersion = 1

        var version: Int
        var issuer: String
        var rs256PrivateKey: String
        var es256PrivateKey: String

        private enum CodingKeys: String, CodingKey {
            case version, issuer, rs256PrivateKey = "rs256_private_key", es256PrivateKey = "es256_private_key"
        }
    }

    /// The issuer at `url` (`paypulse serve --issuer`), with the state directory's keys:
    /// made on first use, kept after; `url` is written to the file for `paypulse jwt`.
    /// - Parameters:
    ///   - url: The server's own base URL.
    ///   - stateDirectory: `PAYPULSE_STATE_DIR`.
    ///   - insideLambda: Whether the process runs in Lambda, where a key on disk that
    ///     anyone with the file can sign with has no place.
    ///   - logger: Told when the directory is open to other users.
    /// - Throws: ``LocalIssuerError`` inside Lambda, or when the file cannot be read,
    ///   decoded or written.
    package static func prepare(url: String, stateDirectory: String, insideLambda: Bool, logger: Logger) throws(LocalIssuerError) -> LocalIssuer {
        guard !insideLambda else { throw .insideLambda }
        if var document = try stored(in: stateDirectory) {
            let issuer = try issuer(from: document, url: url, stateDirectory: stateDirectory)
            if document.issuer != url {
                document.issuer = url
                try save(document, in: stateDirectory, logger: logger)
            }
            return issuer
        }
        let issuer: LocalIssuer
        do {
            issuer = LocalIssuer(url: url, rs256: try .generate(.rs256), es256: try .generate(.es256))
        } catch {
            throw .unwritable(reason: "no key could be generated: \(error)")
        }
        let document = StateDocument(
            version: StateDocument.currentVersion, issuer: url, rs256PrivateKey: issuer.rs256.pemRepresentation,
            es256PrivateKey: issuer.es256.pemRepresentation
        )
        try save(document, in: stateDirectory, logger: logger)
        return issuer
    }

    /// The issuer the last `paypulse serve --issuer` on `stateDirectory` wrote.
    /// - Throws: ``LocalIssuerError`` inside Lambda, when no server has made the file yet,
    ///   or when it cannot be read or decoded.
    package static func load(stateDirectory: String, insideLambda: Bool) throws(LocalIssuerError) -> LocalIssuer {
        guard !insideLambda else { throw .insideLambda }
        guard let document = try stored(in: stateDirectory) else { throw .notStarted(path: path(in: stateDirectory)) }
        return try issuer(from: document, url: document.issuer, stateDirectory: stateDirectory)
    }

    private static func path(in stateDirectory: String) -> String { stateDirectory + "/" + fileName }

    private static func stored(in stateDirectory: String) throws(LocalIssuerError) -> StateDocument? {
        let bytes: [UInt8]?
        do {
            bytes = try StateFile.load(named: fileName, in: stateDirectory)
        } catch {
            throw .unreadable(path: path(in: stateDirectory), reason: "\(error)")
        }
        guard let bytes else { return nil }
        guard let document = try? JSONDecoder().decode(StateDocument.self, from: Data(bytes)), document.version == StateDocument.currentVersion else {
            throw .unreadable(path: path(in: stateDirectory), reason: "not a version \(StateDocument.currentVersion) local issuer document")
        }
        return document
    }

    private static func issuer(from document: StateDocument, url: String, stateDirectory: String) throws(LocalIssuerError) -> LocalIssuer {
        do {
            return LocalIssuer(
                url: url, rs256: try IssuerSigningKey(algorithm: .rs256, pemRepresentation: document.rs256PrivateKey),
                es256: try IssuerSigningKey(algorithm: .es256, pemRepresentation: document.es256PrivateKey)
            )
        } catch {
            // The swift-crypto error names no key material.
            throw .unreadable(path: path(in: stateDirectory), reason: "a private key does not parse (\(error))")
        }
    }

    private static func save(_ document: StateDocument, in stateDirectory: String, logger: Logger) throws(LocalIssuerError) {
        do {
            try StateFile.save(try JSONCoding.encode(document), named: fileName, in: stateDirectory, logger: logger)
        } catch {
            throw .unwritable(reason: "\(error)")
        }
    }
}

/// Why the local issuer's keys cannot be used: one readable line, never a key.
package enum LocalIssuerError: Error, CustomStringConvertible, Equatable {
    /// A Lambda function must not sign with a key from a file.
    case insideLambda
    /// No `paypulse serve --issuer` has run on this state directory.
    case notStarted(path: String)
    /// The file is there but cannot be read, or holds no issuer.
    case unreadable(path: String, reason: String)
    /// The keys could not be made or saved.
    case unwritable(reason: String)

    package var description: String {
        switch self {
        case .insideLambda:
            "the local issuer is for development: refused inside Lambda (configure PAYPULSE_AUTH_MODE=jwks with a real identity provider)"
        case .notStarted(let path):
            "no local issuer key at \(path): start `paypulse serve --issuer` with the same PAYPULSE_STATE_DIR first"
        case .unreadable(let path, let reason): "the local issuer file \(path) cannot be used: \(reason)"
        case .unwritable(let reason): "the local issuer's keys cannot be saved: \(reason)"
        }
    }
}
