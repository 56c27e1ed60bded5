import Foundation
import PayPulseDomain
import PayPulseTestSupport

/// What the workers do: pick a function and a user, make the input (unique tokens, set up
/// at the fake Google first), run the function as a fresh process and record the outcome.
///
/// Half the API calls go to five "hot" users so that calls for one user overlap often;
/// token-refresh runs cover everyone (or one shard of 2–4); Google's security events
/// (tokens-revoked, account-disabled, account-enabled, and redeliveries) name a user's
/// Google account.
struct SoakWorkload: Sendable {
    static let userCount = 50
    static let hotUsers = 5
    /// With `openid`, as Google Sign-In asks: Google's answers then carry an `id_token`
    /// naming the account, whose `sub` the grant stores and security events name.
    static let scope = "openid https://www.googleapis.com/auth/gmail.readonly https://www.googleapis.com/auth/userinfo.email"

    /// Backend name, to keep tokens unique across phases.
    let label: String
    /// Each user's bearer token, by user number.
    let jwts: [String]
    let google: FakeGoogleServer
    let environment: [String: String]
    /// What the security-events processes get (a listing that may lag, on moto).
    let receiverEnvironment: [String: String]
    let events: SoakSecurityEvents

    static func userID(_ user: Int) -> String { "soak-user-\(user < 10 ? "0" : "")\(user)" }

    /// The Google account of every grant `user` connects with a refresh token.
    static func googleSubject(_ user: Int) -> String { String(format: "1170000000000000000%02d", user) }

    /// The address Google's `id_token` names for that account, whatever the body's hint.
    static func googleEmail(_ user: Int) -> String { "soak.user\(user)@gmail.com" }

    /// The user a refresh token was made for (`1//soak-<label>-<user>-<tag>`).
    static func user(ofRefreshToken token: String) -> Int? {
        let parts = token.split(separator: "-")
        return parts.count >= 3 ? Int(parts[parts.count - 2]) : nil
    }

    /// A token set no other call sends. `tag` makes it unique (worker and iteration).
    /// - 70 %: a live refresh token, which store-tokens proves at the fake Google and
    ///   stores as Google answered (the body's email, which varies in case and account, is
    ///   only a hint);
    /// - 5 %: a refresh token the fake Google answers `invalid_grant` for: refused (400);
    /// - 5 %: a live refresh token whose grant the harness revokes once the store answered,
    ///   so that a later refresh marks the set revoked;
    /// - 20 %: no refresh token and a never-used email: stored as sent, not refreshable.
    func tokens(for user: Int, tag: String, using random: inout some RandomNumberGenerator) -> SentTokens {
        let variant = Int.random(in: 0..<100, using: &random)
        let expiresIn = Int.random(in: 60...600, using: &random)
        let access = "ya29.soak-\(label)-\(user)-\(tag)"
        let refresh = "1//soak-\(label)-\(user)-\(tag)"
        switch variant {
        case 0..<70:
            let account = Int.random(in: 0..<10, using: &random)
            let email = account < 2 ? "soak.user\(user).work@gmail.com" : account < 3 ? "Soak.User\(user)@Gmail.com" : "soak.user\(user)@gmail.com"
            var sent = SentTokens(accessToken: access, refreshToken: refresh, email: email, scope: Self.scope, expiresIn: expiresIn, scriptedRevoked: false, call: tag)
            sent.subject = Self.googleSubject(user)
            return sent
        case 70..<80:
            var sent = SentTokens(
                accessToken: access, refreshToken: refresh, email: "soak.user\(user)@gmail.com", scope: Self.scope, expiresIn: expiresIn,
                scriptedRevoked: variant < 75, call: tag
            )
            sent.revokedAfterStore = variant >= 75
            sent.subject = Self.googleSubject(user)
            return sent
        default:
            return SentTokens(
                accessToken: access, refreshToken: nil, email: "switch-\(user)-\(tag)@example.com", scope: Self.scope, expiresIn: expiresIn,
                scriptedRevoked: false, call: tag
            )
        }
    }

    /// Makes the fake Google know `tokens`' grant (dead from the start when scripted so)
    /// before any process can see the set.
    func register(_ tokens: SentTokens) {
        guard let refreshToken = tokens.refreshToken else { return }
        let account = tokens.subject == nil ? FakeGoogleAccount() : FakeGoogleAccount(
            subject: tokens.subject, email: Self.user(ofRefreshToken: refreshToken).map(Self.googleEmail)
        )
        google.addGrant(refreshToken: refreshToken, scope: tokens.scope, account: account)
        if tokens.scriptedRevoked { google.invalidateGrant(refreshToken: refreshToken) }
    }

    /// The rolls of every worker's first iterations, one per function in turn (disconnect,
    /// store-tokens, user-profile, a security event, token-refresh): each function runs at
    /// least once per worker however slow the store, so the soak's check that each ran five
    /// times and did its job does not hang on chance (the DynamoDB phase, moto answering one
    /// request at a time beside the refresh storm, made 83 calls in a minute once, 4 of
    /// them disconnects).
    static let openingRolls = [40, 0, 55, 68, 80]

    /// The user of a worker's opening disconnect and store-tokens: a cold one of its own,
    /// so the pair connects a user anew ("Gmail Connected") before any event of the run can
    /// have named it. (Seen missing from a 20 s DynamoDB phase once reconnects within a
    /// minute of tokens-revoked were refused.)
    static func openingUser(tag: String) -> Int {
        let worker = Int(tag.drop { !$0.isNumber }.prefix { $0.isNumber }) ?? 0
        return hotUsers + worker % (userCount - hotUsers)
    }

    /// Runs one operation on `runner`, chosen at random after ``openingRolls``, and records it.
    func runOne(tag: String, iteration: Int, runner: SpawnedFunction, using random: inout some RandomNumberGenerator) throws -> SoakRecord {
        let roll = iteration < Self.openingRolls.count ? Self.openingRolls[iteration] : Int.random(in: 0..<100, using: &random)
        var user = Bool.random(using: &random) ? Int.random(in: 0..<Self.hotUsers, using: &random) : Int.random(in: 0..<Self.userCount, using: &random)
        if iteration < 2 { user = Self.openingUser(tag: tag) }
        switch roll {
        case 0..<40:
            let sent = tokens(for: user, tag: tag, using: &random)
            register(sent)
            let record = try run(.storeTokens, tag: tag, user: user, event: SoakEvents.storeTokens(sent, jwt: jwts[user]), sent: sent, runner: runner)
            // After the answer, so the store verified a live grant; a later refresh gets invalid_grant.
            if sent.revokedAfterStore, let refreshToken = sent.refreshToken { google.invalidateGrant(refreshToken: refreshToken) }
            return record
        case 40..<55:
            return try run(.disconnect, tag: tag, user: user, event: SoakEvents.disconnect(jwt: jwts[user]), runner: runner)
        case 55..<68:
            return try run(.userProfile, tag: tag, user: user, event: SoakEvents.userProfile(jwt: jwts[user]), runner: runner)
        case 68..<80:
            guard let delivery = events.next(for: user, using: &random) else {
                return try run(.userProfile, tag: tag, user: user, event: SoakEvents.userProfile(jwt: jwts[user]), runner: runner)
            }
            var record = try run(.securityEvents, tag: tag, user: delivery.user, event: SoakEvents.securityEvent(token: delivery.token), runner: runner)
            record.event = delivery.event
            return record
        default:
            return try runRefresh(tag: tag, runner: runner, environment: environment, using: &random)
        }
    }

    /// One run of the refresh storm: token-refresh over everyone or one shard, with a
    /// window (a day, the most allowed) that makes every refreshable set due, so each run
    /// races the writers for every grant.
    func runStorm(tag: String, runner: SpawnedFunction, using random: inout some RandomNumberGenerator) throws -> SoakRecord {
        var stormEnvironment = environment
        stormEnvironment["REFRESH_WINDOW_SECONDS"] = "86400"
        var record = try runRefresh(tag: tag, runner: runner, environment: stormEnvironment, using: &random)
        record.isStorm = true
        return record
    }

    private func runRefresh(
        tag: String, runner: SpawnedFunction, environment: [String: String], using random: inout some RandomNumberGenerator
    ) throws -> SoakRecord {
        let shards = Bool.random(using: &random) ? 1 : Int.random(in: 2...4, using: &random)
        let shard = Int.random(in: 0..<shards, using: &random)
        var record = try run(.tokenRefresh, tag: tag, user: nil, event: SoakEvents.tokenRefresh(shard: shard, of: shards), runner: runner, environment: environment)
        record.catchesUp = shard == 0
        return record
    }

    /// The refresh run the schedule would make next, over everyone, after the workers
    /// stopped: Google's word the receiver's lagging listing missed is applied by then.
    func finalRefresh(runner: SpawnedFunction) throws -> SoakRecord {
        var record = try run(.tokenRefresh, tag: "final", user: nil, event: SoakEvents.tokenRefresh(shard: 0, of: 1), runner: runner)
        record.catchesUp = true
        return record
    }

    private func run(
        _ function: SoakFunction, tag: String, user: Int?, event: Data, sent: SentTokens? = nil, runner: SpawnedFunction,
        environment: [String: String]? = nil
    ) throws -> SoakRecord {
        let result = try runner.run(function.rawValue, event: event, environment: environment ?? (function == .securityEvents ? receiverEnvironment : self.environment))
        var record = SoakRecord(
            function: function, user: user, tag: tag, started: result.started, ended: result.ended, exitStatus: result.exitStatus,
            signal: result.signal, sent: sent
        )
        let response = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        record.eventUnrecorded = function == .securityEvents && result.stderr.contains("applied but not recorded")
        if function == .securityEvents {
            record.handlerSaid = Self.handlerSaid(result.stderr)
        }
        record.storedUnverified = function == .storeTokens && result.stderr.contains("storing it unverified")
        if function == .storeTokens { record.overruledTo = Self.overruledTo(result.stderr) }
        if function == .tokenRefresh {
            record.summary = try? JSONDecoder().decode(RefreshSummary.self, from: Data(result.stdout.utf8))
        } else {
            record.httpStatus = response?["statusCode"] as? Int
        }
        if function == .userProfile, record.httpStatus == 200,
           let body = (response?["body"] as? String).flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }),
           let data = body["data"] as? [String: Any] {
            record.connected = data["gmail_account_connected"] as? Bool
        }
        let failed = result.exitStatus != 0 || (record.httpStatus ?? 0) >= 500 || (function == .tokenRefresh && record.summary == nil)
        if failed {
            record.failureDetail = String(result.stderr.suffix(1500)) + " | stdout: " + String(result.stdout.prefix(500))
        }
        return record
    }

    /// The status store-tokens logged when Google's newer word overruled its write, if it did.
    static func overruledTo(_ stderr: String) -> String? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.contains("Google's newer word on the account") }) else { return nil }
        return ["revoked", "disabled", "deleted"].first { line.contains($0) } ?? "unknown"
    }

    /// The counts the security-events handler logs with "security event received", or that
    /// its ledger answered for it (a token delivered before).
    static func handlerSaid(_ stderr: String) -> String? {
        if stderr.contains("while another copy acts on it") { return "another copy held its claim" }
        if stderr.contains("security event delivered again") { return "its ledger holds the token already" }
        guard let line = stderr.split(separator: "\n").last(where: { $0.contains("security event received") }) else { return nil }
        let counts = ["grants_changed", "grants_unchanged", "grants_stale"].compactMap { key -> String? in
            guard let range = line.range(of: key) else { return nil }
            let digits = line[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
            return "\(key.dropFirst("grants_".count)) \(digits)"
        }
        return counts.joined(separator: ", ")
    }
}
