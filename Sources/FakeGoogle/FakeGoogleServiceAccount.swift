import Foundation
import _CryptoExtras

/// A service account the fake's RISC management API knows: its address, its key's id and
/// public key, whether it holds `roles/riscconfigs.admin`, and, when the fake made the key,
/// the key file Google would have handed out.
package struct FakeGoogleServiceAccount: Sendable {
    /// `client_email`.
    package let email: String
    /// `private_key_id`: the `kid` its tokens must name.
    package let keyID: String
    /// The public key, PEM: what the fake checks signatures with.
    package let publicKeyPEM: String
    /// Whether it may manage the stream; without the role every call gets 403.
    package let permitted: Bool
    /// The key file JSON (`type`, `project_id`, `private_key_id`, `private_key`,
    /// `client_email`, …) when the fake generated the key. It holds the private key: write
    /// it to a 0600 file for the code under test, never into a log.
    package let keyFile: String?

    /// An account whose key pair the test made.
    /// - Parameters:
    ///   - email: Its address.
    ///   - keyID: The key's id, as its tokens name it.
    ///   - publicKeyPEM: The public key (SubjectPublicKeyInfo or PKCS#1 PEM, RSA 2048+).
    ///   - permitted: Whether it holds the role that manages the stream.
    package init(email: String, keyID: String, publicKeyPEM: String, permitted: Bool = true) {
        self.init(email: email, keyID: keyID, publicKeyPEM: publicKeyPEM, permitted: permitted, keyFile: nil)
    }

    private init(email: String, keyID: String, publicKeyPEM: String, permitted: Bool, keyFile: String?) {
        self.email = email
        self.keyID = keyID
        self.publicKeyPEM = publicKeyPEM
        self.permitted = permitted
        self.keyFile = keyFile
    }

    /// A new account with a fresh RSA-2048 key, and its key file in Google's format.
    /// - Parameters:
    ///   - email: Its address.
    ///   - permitted: Whether it holds the role that manages the stream.
    /// - Throws: swift-crypto's error when key generation fails.
    package static func generate(
        email: String = "risc-admin@paypulse-fake.iam.gserviceaccount.com", permitted: Bool = true
    ) throws -> FakeGoogleServiceAccount {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        // Google's key ids are 40 hex digits.
        let keyID = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let project = email.split(separator: "@").last?.split(separator: ".").first.map(String.init) ?? "paypulse-fake"
        let file: [String: String] = [
            "type": "service_account", "project_id": project, "private_key_id": keyID, "private_key": key.pkcs8PEMRepresentation + "\n",
            "client_email": email, "client_id": String(UInt64.random(in: 100_000_000_000_000_000...999_999_999_999_999_999)),
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token",
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs", "universe_domain": "googleapis.com",
        ]
        let json = try JSONSerialization.data(withJSONObject: file, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return FakeGoogleServiceAccount(
            email: email, keyID: keyID, publicKeyPEM: key.publicKey.pemRepresentation, permitted: permitted,
            keyFile: String(decoding: json, as: UTF8.self)
        )
    }
}
