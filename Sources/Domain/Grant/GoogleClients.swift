#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseCoding
import PayPulsePorts

/// Our OAuth client IDs, read from their secret (`Google-OAuth-Client-ID`): one ID as a
/// plain string or `{"client_id": "..."}`, or several as `{"client_ids": ["...", ...]}`
/// (the App Store build, a debug build with another bundle ID, later Android or web).
/// A JSON secret may add the deployment's `token_digest_key` (at least 32 characters),
/// under which grants list their refresh token's digests (``RefreshTokenDigester``) for
/// Google's `token-revoked` events: every function that refreshes already reads this
/// secret, so the key costs no call and no permission more.
///
/// Google refreshes a grant only with the client that obtained it, so a grant is proved
/// with each of ours in turn and keeps the one Google accepted. The first ID is the
/// default: the client of grants stored before grants recorded theirs.
package struct GoogleClients: Sendable, Equatable {
    /// Why the client IDs could not be read: a configuration error that stops the run.
    package struct LoadError: Error, Sendable, CustomStringConvertible {
        /// What went wrong (names the secret, never its value).
        package let description: String
    }

    /// The IDs in the order the secret lists them: never empty, no repeats.
    package let ids: [String]
    /// The digester under the secret's `token_digest_key`; `nil` when it has none (grants
    /// then list no digests, and `token-revoked` finds none of them).
    package let tokenDigester: RefreshTokenDigester?

    /// Clients from `ids`, the first the default.
    /// - Precondition: `ids` is not empty.
    package init(ids: [String], tokenDigester: RefreshTokenDigester? = nil) {
        precondition(!ids.isEmpty, "a client list holds at least one client ID")
        self.ids = ids
        self.tokenDigester = tokenDigester
    }

    /// The client of a grant that does not name one (stored before grants recorded it).
    package var defaultID: String { ids[0] }

    /// Whether `id` is one of ours.
    package func contains(_ id: String) -> Bool { ids.contains(id) }

    /// The order to prove a grant of unknown client in: `preferred` first when it is one
    /// of ours (the app named its client), then the others as listed. A client that is
    /// not ours is never tried: the app's word only orders the trial.
    package func trialOrder(preferring preferred: String?) -> [String] {
        guard let preferred, contains(preferred) else { return ids }
        return [preferred] + ids.filter { $0 != preferred }
    }

    /// Reads and parses the secret.
    /// - Throws: ``LoadError`` when the secret is missing or holds no usable client ID;
    ///   `StoreError.unavailable` when the store is down (the run can try again later).
    package static func load(from secrets: any SecretStore, secretID: String) async throws -> GoogleClients {
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

    /// Parses a plain ID, `{"client_id": "..."}` or `{"client_ids": [...]}`.
    package static func parse(_ text: String, secretID: String) throws(LoadError) -> GoogleClients {
        func refused(_ reason: String) -> LoadError { LoadError(description: "the Google client ID secret '\(secretID)' \(reason)") }
        var slice = Substring(text)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        guard slice.hasPrefix("{") else {
            guard isClientID(slice) else { throw refused("is empty or not a client ID") }
            return GoogleClients(ids: [String(slice)])
        }
        guard case .object(let fields)? = try? JSONValue.decode(Array(slice.utf8)) else { throw refused("is not a JSON object") }
        var digester: RefreshTokenDigester?
        switch fields["token_digest_key"] {
        case nil: break
        case .string(let key)?:
            guard let made = RefreshTokenDigester(key: key) else {
                throw refused("has a token_digest_key shorter than \(RefreshTokenDigester.minimumKeyLength) characters")
            }
            digester = made
        default: throw refused("has a token_digest_key that is not a string")
        }
        switch (fields["client_id"], fields["client_ids"]) {
        case (.string(let id)?, nil):
            guard isClientID(Substring(id)) else { throw refused("has a client_id that is empty or not a client ID") }
            return GoogleClients(ids: [id], tokenDigester: digester)
        case (nil, .array(let list)?):
            var ids: [String] = []
            for element in list {
                guard case .string(let id) = element, isClientID(Substring(id)) else {
                    throw refused("lists something that is not a client ID in client_ids")
                }
                guard !ids.contains(id) else { throw refused("lists a client ID twice in client_ids") }
                ids.append(id)
            }
            guard !ids.isEmpty else { throw refused("has an empty client_ids list") }
            return GoogleClients(ids: ids, tokenDigester: digester)
        case (.some, .some):
            throw refused("has both client_id and client_ids; keep client_ids")
        default:
            throw refused("is JSON without a client_id string or a client_ids list")
        }
    }

    /// The secret's text for `ids` and `digestKey`, in the form ``parse(_:secretID:)`` reads:
    /// one ID as `client_id` (the form other readers of a single-client secret, the Python
    /// peer among them, take), several as `client_ids`. The one writer of the format.
    /// - Throws: ``LoadError`` when the text would not parse back (no ID, an ID with a space,
    ///   a repeated ID, a key too short).
    package static func secretText(ids: [String], digestKey: String, secretID: String) throws(LoadError) -> String {
        let list: (String, JSONValue) = ids.count == 1 ? ("client_id", .string(ids[0])) : ("client_ids", .array(ids.map(JSONValue.string)))
        let text = String(decoding: JSONValue.object([list.0: list.1, "token_digest_key": .string(digestKey)]).compactJSON() ?? [], as: UTF8.self)
        _ = try parse(text, secretID: secretID)
        return text
    }

    /// The `token_digest_key` a stored secret's text holds, if it is JSON with one: kept when
    /// the list is rewritten, since a new key would orphan every grant's listed digests.
    package static func digestKey(in text: String) -> String? {
        guard case .object(let fields)? = try? JSONValue.decode(Array(text.utf8)), case .string(let key)? = fields["token_digest_key"] else { return nil }
        return key
    }

    private static func isClientID(_ text: Substring) -> Bool { !text.isEmpty && !text.contains(where: \.isWhitespace) }
}

/// Our OAuth clients for long-lived processes (store-tokens in a warm Lambda): read from
/// their secret on first use and again after ``lifetime``, so a rotated or extended list is
/// picked up without a redeploy while most requests read nothing.
package actor CachedGoogleClients {
    private let secrets: any SecretStore
    private let secretID: String
    private let lifetime: Duration
    private var cached: (value: GoogleClients, at: ContinuousClock.Instant)?

    /// Creates a cache over the secret `secretID` in `secrets`.
    package init(secrets: any SecretStore, secretID: String, lifetime: Duration = .seconds(300)) {
        self.secrets = secrets
        self.secretID = secretID
        self.lifetime = lifetime
    }

    /// The clients.
    /// - Throws: ``GoogleClients/LoadError`` (missing or unusable secret: our
    ///   configuration), or `StoreError.unavailable`.
    package func value() async throws -> GoogleClients {
        if let cached, ContinuousClock.now - cached.at < lifetime { return cached.value }
        let value = try await GoogleClients.load(from: secrets, secretID: secretID)
        cached = (value, ContinuousClock.now)
        return value
    }
}

/// Refreshes a grant with our clients in turn until Google accepts one: how a grant whose
/// client is not known yet (a connect, a set stored unverified) finds it, and how a known
/// one (a trial of one) is renewed.
///
/// A client refusal while that client is healthy means "not this client's grant": the next
/// is tried. `invalid_grant` ends the trial (the grant is dead whoever asks), and so does
/// an answer that decides nothing (Google unavailable: asking more clients only adds load).
/// When no client accepts, a broken client of ours outranks "foreign": the grant may be
/// that client's.
enum ClientTrial {
    /// What the trial found.
    enum Outcome: Sendable {
        /// Google renewed the grant with `clientID`.
        case accepted(GoogleRefreshAnswer, clientID: String)
        /// No client renewed it: why, read as for one client, and Google's last refusal
        /// (`nil` when the exchange itself failed).
        case refused(GrantRefusal, cause: GoogleOAuthError?)
    }

    /// Refreshes `refreshToken` with each of `candidates` until one is accepted.
    /// - Precondition: `candidates` is not empty.
    static func refresh(
        _ refreshToken: String, candidates: [String], google: any GoogleOAuth, health: OAuthClientHealth
    ) async -> Outcome {
        precondition(!candidates.isEmpty, "a trial needs a client")
        var broken: String?
        var cause: GoogleOAuthError?
        for clientID in candidates {
            do {
                return .accepted(try await google.refresh(refreshToken: refreshToken, clientID: clientID), clientID: clientID)
            } catch let error as GoogleOAuthError {
                cause = error
                switch await health.read(error, clientID: clientID) {
                case .foreign: continue
                case .ourClient(let reason):
                    broken = broken ?? reason
                    continue
                case let decided: return .refused(decided, cause: error)
                }
            } catch {
                return .refused(.undecided("\(type(of: error))"), cause: nil)
            }
        }
        return .refused(broken.map(GrantRefusal.ourClient) ?? .foreign, cause: cause)
    }
}
