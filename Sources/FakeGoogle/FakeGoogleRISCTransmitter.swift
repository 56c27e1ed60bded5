import Foundation
import PayPulseTransport
import Synchronization
import _CryptoExtras

/// The sending side of the fake Google's Cross-Account Protection: it signs each event as a
/// Security Event Token the way Google does and pushes it to a receiver (RFC 8935).
///
/// The token: header `{"alg": "RS256", "kid"}`; claims `iss` (the fake's issuer URL, with a
/// trailing slash as Google's `https://accounts.google.com/`), `aud` (one of the fake's
/// client IDs), `iat`, a fresh `jti` and `events`. The key is the fake's own RSA-2048 key,
/// made on first use (most fakes never send an event) and published as the key set its RISC
/// discovery document names.
///
/// The push is `POST` with `Content-Type: application/secevent+jwt`; the same token is
/// sent again until the receiver answers 202, within ``Redelivery``'s limits, except after a
/// 400 (a refused token, which Google does not send again). Thread-safe.
package final class FakeGoogleRISCTransmitter: Sendable {
    /// How often and how soon an event the receiver did not accept is sent again.
    package struct Redelivery: Sendable, Equatable {
        /// Attempts in all, the first included (at least 1).
        package var attempts: Int
        /// The wait before the second attempt; each later wait doubles.
        package var backoff: Duration

        /// Creates a policy.
        package init(attempts: Int, backoff: Duration) {
            self.attempts = max(1, attempts)
            self.backoff = backoff
        }

        /// Five attempts over about fifteen seconds: short enough for `paypulse serve` to
        /// answer while the developer waits.
        package static let standard = Redelivery(attempts: 5, backoff: .seconds(1))

        /// The wait after attempt `attempt` (from 1).
        func wait(after attempt: Int) -> Duration { backoff * (1 << min(attempt - 1, 16)) }
    }

    /// Where the fake is reachable, known once its server listens.
    struct Addresses: Sendable {
        var issuer: String
        var keySetURL: String
    }

    private struct Key: Sendable {
        let privateKey: _RSA.Signing.PrivateKey
        let id: String
    }

    private let clientIDs: [String]
    private let transport: any HTTPTransport
    private let key = Mutex<Key?>(nil)
    private let addresses = Mutex<Addresses?>(nil)
    private let policy = Mutex(Redelivery.standard)

    init(clientIDs: [String], transport: any HTTPTransport) {
        self.clientIDs = clientIDs
        self.transport = transport
    }

    /// The retry limits for later sends.
    package var redelivery: Redelivery {
        get { policy.withLock { $0 } }
        set { policy.withLock { $0 = newValue } }
    }

    /// The `iss` of its tokens: the fake's base URL with a trailing slash.
    package var issuer: String? { addresses.withLock { $0?.issuer } }

    /// Names the fake's base URL (`http://127.0.0.1:<port>`, or a mount point below a server).
    func locate(baseURL: String, keySetPath: String) {
        addresses.withLock { $0 = Addresses(issuer: baseURL + "/", keySetURL: baseURL + keySetPath) }
    }

    /// Where its key set is served; `nil` before ``locate(baseURL:keySetPath:)``.
    var keySetURL: String? { addresses.withLock { $0?.keySetURL } }

    /// Its public key, PEM, for a test that verifies its tokens with another library.
    /// - Throws: swift-crypto's error when the key cannot be made.
    package func publicKeyPEM() throws -> String { try signingKey().privateKey.publicKey.pemRepresentation }

    /// Its key set: one RS256 key, as Google's JWKS writes it.
    /// - Throws: swift-crypto's error when the key cannot be made.
    package func keySet() throws -> String {
        let key = try signingKey()
        let primitives = try key.privateKey.publicKey.getKeyPrimitives()
        let jwk = ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": key.id, "n": Self.base64URL(primitives.modulus), "e": Self.base64URL(primitives.publicExponent)]
        return Self.json(["keys": [jwk]])
    }

    /// Signs `event` and pushes it to `receiver` until it is accepted, refused, or the
    /// attempts run out.
    /// - Parameters:
    ///   - event: The event.
    ///   - receiver: The receiver's URL.
    ///   - audience: The client ID it is for; the fake's first by default.
    func deliver(_ event: FakeGoogleSecurityEvent, to receiver: String, audience: String?) async -> FakeGoogleRISCDelivery {
        let jti = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        var delivery = FakeGoogleRISCDelivery(jti: jti, type: event.type, receiver: receiver, attempts: [], outcome: .gaveUp)
        let token: String
        do {
            token = try sign(event, jti: jti, audience: audience ?? clientIDs[0])
        } catch {
            delivery.attempts = [.init(status: nil, failure: "the token could not be signed: \(error)")]
            return delivery
        }
        let policy = redelivery
        for attempt in 1...policy.attempts {
            let request = HTTPRequest(
                method: "POST", url: receiver, headers: ["Content-Type": "application/secevent+jwt", "Accept": "application/json"],
                body: Array(token.utf8), freshConnection: true
            )
            do {
                let status = try await transport.execute(request).status
                delivery.attempts.append(.init(status: status, failure: nil))
                if status == 202 || status == 400 {
                    delivery.outcome = status == 202 ? .delivered : .refused
                    return delivery
                }
            } catch {
                delivery.attempts.append(.init(status: nil, failure: "\(error)"))
            }
            if attempt < policy.attempts { try? await Task.sleep(for: policy.wait(after: attempt)) }
        }
        return delivery
    }

    /// The compact JWS of `event`.
    func sign(_ event: FakeGoogleSecurityEvent, jti: String, audience: String) throws -> String {
        let key = try signingKey()
        let issuer = issuer ?? "https://accounts.google.com/"
        let claims: [String: any Sendable] = [
            "iss": issuer, "aud": audience, "iat": Int(Date().timeIntervalSince1970), "jti": jti, "events": event.claim(issuer: issuer),
        ]
        let input = Self.base64URL(Data(Self.json(["alg": "RS256", "kid": key.id]).utf8)) + "." + Self.base64URL(Data(Self.json(claims).utf8))
        let signature = try key.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    private func signingKey() throws -> Key {
        try key.withLock { key in
            if let key { return key }
            let made = Key(
                privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048),
                id: (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            )
            key = made
            return made
        }
    }

    private static func json(_ object: [String: any Sendable]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
