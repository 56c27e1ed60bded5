import Foundation
import PayPulseDomain
import PayPulseTestSupport

/// What the workers do: pick a function and a user, make the input (unique tokens, set up
/// at the fake Google first), run the function as a fresh process and record the outcome.
///
/// Half the API calls go to five "hot" users so that calls for one user overlap often;
/// token-refresh runs cover everyone (or one shard of 2–4).
struct SoakWorkload: Sendable {
    static let userCount = 50
    static let hotUsers = 5
    static let scope = "https://www.googleapis.com/auth/gmail.readonly https://www.googleapis.com/auth/userinfo.email"

    /// Backend name, to keep tokens unique across phases.
    let label: String
    /// Each user's bearer token, by user number.
    let jwts: [String]
    let google: FakeGoogleServer
    let environment: [String: String]

    static func userID(_ user: Int) -> String { "soak-user-\(user < 10 ? "0" : "")\(user)" }

    /// A token set no other call sends. `tag` makes it unique (worker and iteration).
    /// - 70 %: a live refresh token, the user's usual account (sometimes in other letter
    ///   case, which is the same account) or their second account (an account switch);
    /// - 10 %: a refresh token the fake Google answers `invalid_grant` for;
    /// - 20 %: no refresh token and a never-used email: an account switch stored as not
    ///   refreshable.
    func tokens(for user: Int, tag: String, using random: inout some RandomNumberGenerator) -> SentTokens {
        let variant = Int.random(in: 0..<100, using: &random)
        let expiresIn = Int.random(in: 60...600, using: &random)
        let access = "ya29.soak-\(label)-\(user)-\(tag)"
        let refresh = "1//soak-\(label)-\(user)-\(tag)"
        switch variant {
        case 0..<70:
            let account = Int.random(in: 0..<10, using: &random)
            let email = account < 2 ? "soak.user\(user).work@gmail.com" : account < 3 ? "Soak.User\(user)@Gmail.com" : "soak.user\(user)@gmail.com"
            return SentTokens(accessToken: access, refreshToken: refresh, email: email, scope: Self.scope, expiresIn: expiresIn, scriptedRevoked: false, call: tag)
        case 70..<80:
            return SentTokens(
                accessToken: access, refreshToken: refresh, email: "soak.user\(user)@gmail.com", scope: Self.scope, expiresIn: expiresIn,
                scriptedRevoked: true, call: tag
            )
        default:
            return SentTokens(
                accessToken: access, refreshToken: nil, email: "switch-\(user)-\(tag)@example.com", scope: Self.scope, expiresIn: expiresIn,
                scriptedRevoked: false, call: tag
            )
        }
    }

    /// Makes the fake Google know `tokens`' grant (revoked when scripted so) before any
    /// process can see the set.
    func register(_ tokens: SentTokens) {
        guard let refreshToken = tokens.refreshToken else { return }
        google.addGrant(refreshToken: refreshToken, scope: tokens.scope)
        if tokens.scriptedRevoked { google.invalidateGrant(refreshToken: refreshToken) }
    }

    /// Runs one randomly chosen operation on `runner` and records it.
    func runOne(tag: String, runner: SpawnedFunction, using random: inout some RandomNumberGenerator) throws -> SoakRecord {
        let roll = Int.random(in: 0..<100, using: &random)
        let user = Bool.random(using: &random) ? Int.random(in: 0..<Self.hotUsers, using: &random) : Int.random(in: 0..<Self.userCount, using: &random)
        switch roll {
        case 0..<40:
            let sent = tokens(for: user, tag: tag, using: &random)
            register(sent)
            return try run(.storeTokens, user: user, event: SoakEvents.storeTokens(sent, jwt: jwts[user]), sent: sent, runner: runner)
        case 40..<55:
            return try run(.disconnect, user: user, event: SoakEvents.disconnect(jwt: jwts[user]), runner: runner)
        case 55..<80:
            return try run(.userProfile, user: user, event: SoakEvents.userProfile(jwt: jwts[user]), runner: runner)
        default:
            let shards = Bool.random(using: &random) ? 1 : Int.random(in: 2...4, using: &random)
            let event = SoakEvents.tokenRefresh(shard: Int.random(in: 0..<shards, using: &random), of: shards)
            return try run(.tokenRefresh, user: nil, event: event, runner: runner)
        }
    }

    private func run(_ function: SoakFunction, user: Int?, event: Data, sent: SentTokens? = nil, runner: SpawnedFunction) throws -> SoakRecord {
        let result = try runner.run(function.rawValue, event: event, environment: environment)
        var record = SoakRecord(
            function: function, user: user, started: result.started, ended: result.ended, exitStatus: result.exitStatus, signal: result.signal,
            sent: sent
        )
        let response = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        if function == .tokenRefresh {
            record.summary = try? JSONDecoder().decode(RefreshSummary.self, from: Data(result.stdout.utf8))
        } else {
            record.httpStatus = response?["statusCode"] as? Int
        }
        let failed = result.exitStatus != 0 || (record.httpStatus ?? 0) >= 500 || (function == .tokenRefresh && record.summary == nil)
        if failed {
            record.failureDetail = String(result.stderr.suffix(1500)) + " | stdout: " + String(result.stdout.prefix(500))
        }
        return record
    }
}
