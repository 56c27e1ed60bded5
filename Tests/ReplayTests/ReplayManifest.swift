import Foundation
import PayPulseTestSupport

/// `events/manifest.json`: every sample event, what it must answer, and what it must store.
struct ReplayManifest: Decodable {
    struct User: Decodable {
        var user_id: String
        var name: String
        var email: String
        var created_on: String
    }

    struct Case: Decodable, CustomStringConvertible, Sendable {
        var function: String
        var name: String
        var event: String
        var expected: String?
        /// The answer on a store with a due index, where it differs from ``expected``.
        var expected_indexed: String?
        var before: [String]
        var exit: Int32
        var secrets: [String]
        var stored: StoredExpectation?
        /// `unreachable-aws`: run against AWS endpoints where nothing listens; `apigateway`:
        /// run with `PAYPULSE_AUTH_MODE=apigateway` (the event carries the authorizer's claims).
        var environment: String?

        var description: String { "\(function)/\(name)" }
    }

    /// What the secret must hold after the case: fields of the token set (`null` means
    /// absent), `expires_in` as `expires_at - updated_at`, and a subset of the tags.
    struct StoredExpectation: Decodable, Sendable {
        var access_token: String?
        var refresh_token: String??
        var token_type: String?
        var scope: String?
        var google_email: String??
        var status: String?
        var version: Int?
        var expires_in: Int?
        var google_sub: String??
        var verified: Bool?
        var tags: [String: String]?
    }

    var user: User
    /// The functions' OAuth clients, the default first: the client-ID secret lists them and
    /// the fake Google knows them.
    var google_clients: [String]
    /// The deployment's key in the client-ID secret (grants' refresh-token digests).
    var token_digest_key: String
    /// The grants the fake Google knows (any other refresh token gets `invalid_grant`).
    var google_grants: [FakeGoogleGrantSpec]
    /// The key set the security events are signed under, and their issuer: what the fake
    /// Google publishes as its RISC discovery document names them.
    var risc_keys: RISCKeys
    var cases: [Case]

    struct RISCKeys: Decodable {
        var issuer: String
        var jwks: [String: [[String: String]]]
        /// The test key the events are signed with (PKCS#8 PEM), for delivering them now
        /// (``SecurityEventDelivery``).
        var private_key_pem: String
    }

    /// A fake Google on loopback that knows the manifest's clients and every grant, as the
    /// manifest describes them.
    func fakeGoogle() throws -> FakeGoogleServer {
        let google = try FakeGoogleServer(clientIDs: google_clients)
        for grant in google_grants {
            google.addGrant(refreshToken: grant.refreshToken, scope: grant.scope, account: grant.account)
        }
        let keySet = (try? JSONSerialization.data(withJSONObject: risc_keys.jwks)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        google.publishRISCKeys(keySet, issuer: risc_keys.issuer)
        return google
    }

    /// The client-ID secret's value: `{"client_ids": [...], "token_digest_key": ...}`.
    var clientIDSecret: String {
        let secret: [String: Any] = ["client_ids": google_clients, "token_digest_key": token_digest_key]
        return String(decoding: (try? JSONSerialization.data(withJSONObject: secret)) ?? Data(), as: UTF8.self)
    }

    /// The events folder of this checkout.
    static let eventsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("events")

    static let shared: ReplayManifest = {
        let url = eventsDirectory.appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: url.path), let manifest = try? JSONDecoder().decode(ReplayManifest.self, from: data) else {
            fatalError("cannot read \(url.path); run python3 scripts/make-events.py")
        }
        return manifest
    }()

    static var allCases: [Case] { shared.cases }

    static func named(_ name: String) -> Case? { shared.cases.first { $0.name == name } }

    static func bytes(_ relativePath: String) -> Data {
        FileManager.default.contents(atPath: eventsDirectory.appendingPathComponent(relativePath).path) ?? Data()
    }
}

extension KeyedDecodingContainer {
    /// Tells an explicit `null` (`.some(nil)`) from a missing key (`nil`).
    func decodeIfPresent<T: Decodable>(_ type: T?.Type, forKey key: Key) throws -> T?? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) { return .some(nil) }
        return .some(try decode(T.self, forKey: key))
    }
}
