#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// The iOS OAuth client ID, read once per run from its secret (`Google-OAuth-Client-ID`):
/// a plain string or JSON with `client_id`.
public enum GoogleClientID {
    /// Why the client ID could not be read: a configuration error that stops the run.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        /// What went wrong (names the secret, never its value).
        public let description: String
    }

    /// Reads and parses the secret.
    /// - Throws: ``LoadError`` when the secret is missing or holds no client ID;
    ///   `StoreError.unavailable` when the store is down (the run can try again later).
    public static func load(from secrets: any SecretStore, secretID: String) async throws -> String {
        let text: String
        do {
            text = try await secrets.getSecretValue(name: secretID, stage: .current).string
        } catch let error as StoreError where error == .unavailable {
            throw error
        } catch {
            throw LoadError(description: "cannot read the Google client ID secret '\(secretID)': \(error)")
        }
        return try parse(text, secretID: secretID)
    }

    /// Parses a plain string or `{"client_id": "..."}`.
    public static func parse(_ text: String, secretID: String) throws -> String {
        var slice = Substring(text)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        let trimmed = String(slice)
        if trimmed.hasPrefix("{") {
            struct Shape: Decodable { var client_id: String? }
            guard let id = (try? JSONDecoder().decode(Shape.self, from: Data(trimmed.utf8)))?.client_id, !id.isEmpty else {
                throw LoadError(description: "the Google client ID secret '\(secretID)' is JSON without a client_id string")
            }
            return id
        }
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isWhitespace) else {
            throw LoadError(description: "the Google client ID secret '\(secretID)' is empty or not a client ID")
        }
        return trimmed
    }
}

/// The iOS OAuth client ID for long-lived processes (store-tokens in a warm Lambda): read
/// from its secret on first use and again after ``lifetime``, so a rotated secret is picked
/// up without a redeploy while most requests read nothing.
public actor CachedClientID {
    private let secrets: any SecretStore
    private let secretID: String
    private let lifetime: Duration
    private var cached: (value: String, at: ContinuousClock.Instant)?

    /// Creates a cache over the secret `secretID` in `secrets`.
    public init(secrets: any SecretStore, secretID: String, lifetime: Duration = .seconds(300)) {
        self.secrets = secrets
        self.secretID = secretID
        self.lifetime = lifetime
    }

    /// The client ID.
    /// - Throws: ``GoogleClientID/LoadError`` (missing or unusable secret: our
    ///   configuration), or `StoreError.unavailable`.
    public func value() async throws -> String {
        if let cached, ContinuousClock.now - cached.at < lifetime { return cached.value }
        let value = try await GoogleClientID.load(from: secrets, secretID: secretID)
        cached = (value, ContinuousClock.now)
        return value
    }
}
