import Foundation
import PayPulseDomain

/// The functions the soak runs: the four the app and the schedule call, and Google's
/// security events.
enum SoakFunction: String, Sendable, CaseIterable {
    case storeTokens = "store-tokens"
    case tokenRefresh = "token-refresh"
    case disconnect
    case userProfile = "user-profile"
    case securityEvents = "security-events"
}

/// One security event token Google posted (or posted again) about a user's Google account.
struct SentEvent: Sendable, Equatable {
    enum Kind: String, Sendable, CaseIterable {
        case tokensRevoked = "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"
        case accountDisabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
        case accountEnabled = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"
    }

    var kind: Kind
    /// Names the token (its `jti`): deliveries of one token share it.
    var jti: String
    /// The token's `iat`: an event older than a grant's last proof, or than the latest
    /// account event applied to it, leaves it alone.
    var issuedAt: Date
    /// Whether this delivery sends a token some earlier operation already sent.
    var redelivery: Bool
    /// Whether the token is an hour old: delayed past the reconnects, as Google's redelivery
    /// after our 503s can be.
    var late = false
}

/// The token set one store-tokens call sent, exactly (the app's JSON body).
struct SentTokens: Sendable, Equatable {
    var accessToken: String
    /// Absent in the "account switch without a refresh token" variant.
    var refreshToken: String?
    var email: String
    /// Space-joined, as stored.
    var scope: String
    var expiresIn: Int
    /// Whether the fake Google answers `invalid_grant` for its refresh token from the
    /// start: store-tokens must refuse it (400) and store nothing.
    var scriptedRevoked: Bool
    /// Whether the harness revokes the grant behind the client's back once the store has
    /// answered, so that a later refresh gets `invalid_grant` and marks the set revoked.
    var revokedAfterStore = false
    /// The seed: stored by the harness in-process, never shown to Google.
    var seeded = false
    /// The Google account (`sub`) the grant belongs to, which Google's `id_token` names and
    /// the user's security events name; `nil` for a body without a refresh token.
    var subject: String?

    /// Whether the set is stored as the body says (Google never saw it), not as Google
    /// answered: the seed, and bodies without a refresh token.
    var storedAsSent: Bool { refreshToken == nil || seeded }
    /// Names the call in reports (worker and iteration), which never print a token.
    var call: String
}

/// One operation the soak ran: which function, for whom, when (monotonic), and what came
/// back.
struct SoakRecord: Sendable {
    var function: SoakFunction
    /// The user, for the three API functions; `nil` for token-refresh.
    var user: Int?
    /// Names the call in reports: worker and iteration (storm runs start with `s`).
    var tag = ""
    var started: ContinuousClock.Instant
    var ended: ContinuousClock.Instant
    /// `nil` when killed by a signal.
    var exitStatus: Int32?
    var signal: Int32?
    /// The API response's `statusCode`; `nil` for token-refresh or an unreadable response.
    var httpStatus: Int?
    /// store-tokens: the set sent.
    var sent: SentTokens?
    /// token-refresh: the summary it answered.
    var summary: RefreshSummary?
    /// user-profile: its `gmail_account_connected`, when it answered 200.
    var connected: Bool?
    /// security-events: the token posted.
    var event: SentEvent?
    /// security-events: acted on but its `jti` not recorded (the function logged so), so a
    /// later delivery of the same token may act again.
    var eventUnrecorded = false
    /// A token-refresh of the first shard (or of everyone): it applies Google's recent word
    /// to the grants the listing shows, before it refreshes.
    var catchesUp = false
    /// A token-refresh of the storm workers, which run nothing else.
    var isStorm = false
    /// Written by the harness before the soak (the seed of each user), not by a process.
    var isSeed = false
    /// The last lines of standard error, kept only for failed runs.
    var failureDetail: String?
    /// For a security event: what the handler said it did (grants changed, unchanged,
    /// stale), from its log, so a report can tell a missed grant from a stale verdict.
    var handlerSaid: String?
    /// For store-tokens: Google could not be asked, so the set went in unverified (the app's
    /// tokens, no Google account) for the next refresh run to prove.
    var storedUnverified = false

    /// For store-tokens: answered 400 because Google's word on the account, read after the
    /// write, overruled it (an event issued after Google's proof): the set was written and
    /// then revoked or disabled as Google said.
    var overruled: Bool { overruledTo != nil }
    /// What that word left the set: `revoked`, `disabled` (or `deleted`, for a purge).
    var overruledTo: String?

    /// A security event answered 503 because another copy of it was being acted on: Google
    /// delivers it again, as it must.
    var inFlightElsewhere: Bool { function == .securityEvents && httpStatus == 503 && handlerSaid == "another copy held its claim" }

    /// A store-tokens that answered 201.
    var isStored: Bool { function == .storeTokens && httpStatus == 201 }
    /// A store-tokens that wrote its set: answered 201, or was overruled by Google's word
    /// after its write (its set then never reads active).
    var wrote: Bool { isStored || function == .storeTokens && httpStatus == 400 && overruled }
    /// A disconnect that answered 200.
    var isDisconnected: Bool { function == .disconnect && httpStatus == 200 }

    /// Did what it was asked: stored (201, or overruled by Google's word), disconnected
    /// (200), answered the profile (200), ran a refresh (a summary), or acted on an event
    /// (202, or 503 while another copy acted on it).
    var isSuccess: Bool {
        switch function {
        case .storeTokens: wrote  // a store Google's newer word overruled did what it must
        case .disconnect: isDisconnected
        case .userProfile: httpStatus == 200 && connected != nil
        case .tokenRefresh: unexpected == nil
        case .securityEvents: httpStatus == 202 || inFlightElsewhere
        }
    }

    /// A security event of `kind` that may have acted: its process ran (202 or not: a 503
    /// may have changed some grants before failing).
    func isEvent(_ kind: SentEvent.Kind) -> Bool { function == .securityEvents && event?.kind == kind }

    /// An accepted delivery of `other`'s token that recorded it before `other` started:
    /// `other` then found it recorded and did nothing.
    func recordedBefore(_ other: SoakRecord) -> Bool {
        function == .securityEvents && event?.jti == other.event?.jti && httpStatus == 202 && !eventUnrecorded && endedBefore(other)
    }

    /// The least share of a function's runs that must succeed, in percent: store-tokens is
    /// refused for 5 % of its calls by design (a grant dead from the start), and for those
    /// Google's word overrules (a minute after a revoking event); a disconnect
    /// finds nothing when another got there first, which the 50 users keep rare.
    static func minimumSuccessPercent(_ function: SoakFunction) -> Int {
        switch function {
        case .storeTokens: 80
        case .disconnect: 50
        case .userProfile, .tokenRefresh: 100
        case .securityEvents: 90
        }
    }

    /// Ended strictly before `other` started: no overlap, so `other`'s effect comes later.
    func endedBefore(_ other: SoakRecord) -> Bool { ended < other.started }

    /// Why this answer is not one the workload can cause, or `nil` when it is expected.
    /// Every function's every status is judged: store-tokens answers 201 to a live grant and
    /// 400 to one Google refuses from the start (the workload chose which); disconnect 200,
    /// or 404 when nothing was connected (another disconnect got there first); user-profile
    /// 200 with `gmail_account_connected`; token-refresh a readable summary. A signal, a
    /// non-zero exit or output that is not a response is never expected.
    var unexpected: String? {
        if let signal { return "killed by signal \(signal)" }
        if exitStatus != 0 { return "exit \(exitStatus ?? -1)" }
        switch function {
        case .tokenRefresh:
            return summary == nil ? "no readable run summary" : nil
        case .storeTokens:
            guard let httpStatus else { return "no readable response" }
            let expected = sent?.scriptedRevoked == true || overruled ? 400 : 201
            return httpStatus == expected ? nil : "answered \(httpStatus) where the workload expects \(expected)"
        case .disconnect:
            guard let httpStatus else { return "no readable response" }
            return httpStatus == 200 || httpStatus == 404 ? nil : "answered \(httpStatus) where the workload expects 200 or 404"
        case .userProfile:
            guard let httpStatus else { return "no readable response" }
            if httpStatus != 200 { return "answered \(httpStatus) where the workload expects 200" }
            return connected == nil ? "answered 200 without gmail_account_connected" : nil
        case .securityEvents:
            // A grant that kept changing under the event (every reread lost its swap to a
            // refresh or a reconnect), or a copy delivered while another acts on it, is 503
            // by design: Google delivers it again.
            guard let httpStatus else { return "no readable response" }
            let retried = ["kept changing", "while another copy acts on it"]
            if httpStatus == 202 || (httpStatus == 503 && retried.contains { failureDetail?.contains($0) == true }) { return nil }
            return "answered \(httpStatus) where the workload expects 202"
        }
    }

    /// The outcome bucket the report counts: the HTTP status, the refresh result, or how
    /// the process ended abnormally.
    var outcome: String {
        if let signal { return "signal \(signal)" }
        if exitStatus != 0 { return "exit \(exitStatus ?? -1)" }
        if let httpStatus { return "\(httpStatus)" }
        if summary != nil { return "ok" }
        return "unreadable"
    }
}

extension GmailTokenSet {
    /// When Google last proved the set, in whole seconds since 1970, as the soak's report
    /// and violations print it beside an event's `iat`.
    var provedAtText: String { verifiedAt.map { String(Int64($0.timeIntervalSince1970)) } ?? "never" }
}
