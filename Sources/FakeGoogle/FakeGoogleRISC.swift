import Foundation
import Synchronization

/// Google's RISC management API as the fake answers it, under `/risc/v1beta`:
/// `POST stream:update`, `GET stream`, `GET stream/status`, `POST stream/status:update` and
/// `POST stream:verify`, each authorized by a registered service account's self-signed
/// token (``FakeGoogleRISCAuthorization``), answered 200 with JSON or with Google's error
/// object.
///
/// Like Google it refuses a receiver that is not `https://` with 403, except a loopback
/// `http://` one (the tests' and `paypulse serve`'s receivers). It keeps the stream, its
/// status and the verification states asked for, and records every call.
///
/// Events go out through ``send(_:to:audience:)`` as Google sends them: signed by the
/// ``transmitter``, to the stream's receiver, only event types the stream asked for, nothing
/// while it is disabled (and nothing kept for later); `stream:verify` pushes a
/// `verification` event with its `state`. Each event sent first changes what the fake's token
/// endpoint answers, as Google's own state does (``FakeGoogleGrants/follow(_:)``). Thread-safe.
package final class FakeGoogleRISC: Sendable {
    /// The stream as registered.
    package struct Stream: Sendable, Equatable {
        /// `delivery.delivery_method`.
        package var deliveryMethod: String
        /// `delivery.url`: where events go.
        package var receiver: String
        /// `events_requested`, as sent.
        package var eventsRequested: [String]
    }

    private struct State {
        var accounts: [FakeGoogleServiceAccount] = []
        var stream: Stream?
        var status = "enabled"
        var verificationStates: [String] = []
        var requests: [FakeGoogleRISCRequest] = []
        var deliveries: [FakeGoogleRISCDelivery] = []
        var pushes: [Task<Void, Never>] = []
    }

    /// The path below the server's root every call starts with.
    static let basePath = "/risc/v1beta"
    static let pushDeliveryMethod = "https://schemas.openid.net/secevent/risc/delivery-method/push"
    /// Google's supported list: what `events_delivered` keeps of `events_requested`.
    static let supportedEvents =
        ["sessions-revoked", "account-disabled", "account-enabled", "account-credential-change-required", "verification"]
        .map { "https://schemas.openid.net/secevent/risc/event-type/" + $0 }
        + ["tokens-revoked", "token-revoked"].map { "https://schemas.openid.net/secevent/oauth/event-type/" + $0 }

    private let state = Mutex(State())
    private let clientIDs: [String]
    /// Signs and pushes the events.
    package let transmitter: FakeGoogleRISCTransmitter
    /// What Google itself does on an event before it tells anyone (``FakeGoogleGrants/follow(_:)``).
    private let follower = Mutex<(@Sendable (FakeGoogleSecurityEvent) -> Void)?>(nil)

    init(clientIDs: [String], transmitter: FakeGoogleRISCTransmitter) {
        self.clientIDs = clientIDs
        self.transmitter = transmitter
    }

    /// Has `effect` run on each event before it is sent: the token endpoint's own state.
    func follow(_ effect: @escaping @Sendable (FakeGoogleSecurityEvent) -> Void) {
        follower.withLock { $0 = effect }
    }

    /// Lets `account` call the API (with the role, unless it says otherwise).
    package func addServiceAccount(_ account: FakeGoogleServiceAccount) {
        state.withLock { $0.accounts.append(account) }
    }

    /// The stream registered, if any.
    package var stream: Stream? { state.withLock { $0.stream } }
    /// `enabled` or `disabled`; `nil` before a stream is registered.
    package var status: String? { state.withLock { $0.stream == nil ? nil : $0.status } }
    /// The `state` of each `stream:verify`, in order.
    package var verificationStates: [String] { state.withLock { $0.verificationStates } }
    /// Every call received, in order.
    package var requests: [FakeGoogleRISCRequest] { state.withLock { $0.requests } }
    /// How many deliveries ``deliveries`` keeps.
    static let keptDeliveries = 256
    /// What became of every event sent (the last ``keptDeliveries``), in the order they ended.
    package var deliveries: [FakeGoogleRISCDelivery] { state.withLock { $0.deliveries } }

    /// Sends one event as Google does, and says what became of it.
    ///
    /// While a stream is registered its status decides first: disabled sends nothing. To the
    /// stream's receiver only the event types it requested go (`verification` always).
    /// - Parameters:
    ///   - event: The event.
    ///   - receiver: Where to push it instead of the stream's receiver (a test's, or
    ///     `paypulse serve`'s own, which registers no stream).
    ///   - audience: The client ID the token is for; the fake's first by default.
    /// - Returns: The delivery: its `jti`, every attempt's status, and its outcome.
    @discardableResult
    package func send(_ event: FakeGoogleSecurityEvent, to receiver: String? = nil, audience: String? = nil) async -> FakeGoogleRISCDelivery {
        // Google's own state changes first, whoever hears of it: its token endpoint refuses
        // what the event ended, delivered or not.
        follower.withLock { $0 }?(event)
        let (stream, status) = state.withLock { ($0.stream, $0.status) }
        var delivery = FakeGoogleRISCDelivery(jti: nil, type: event.type, receiver: nil, attempts: [], outcome: .noReceiver)
        if stream != nil, status == "disabled" {
            delivery.outcome = .streamDisabled
        } else if let target = receiver ?? stream?.receiver {
            if receiver == nil, event.type != .verification, stream?.eventsRequested.contains(event.type.uri) == false {
                delivery.outcome = .notRequested
            } else {
                delivery = await transmitter.deliver(event, to: target, audience: audience)
            }
        }
        state.withLock { [delivery] in
            $0.deliveries.append(delivery)
            // `paypulse serve` runs for days: keep the recent history only.
            if $0.deliveries.count > Self.keptDeliveries { $0.deliveries.removeFirst() }
        }
        return delivery
    }

    /// Waits until every push `stream:verify` started has ended.
    package func settle() async {
        while let push = state.withLock({ $0.pushes.isEmpty ? nil : $0.pushes.removeFirst() }) { await push.value }
    }

    /// Answers one request whose target starts with ``basePath``.
    func answer(_ raw: ScriptedHTTPServer.Request) -> FakeGoogleReply {
        let path = raw.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        let authorization = raw.headers["authorization"]
        var record = FakeGoogleRISCRequest(
            method: raw.method, call: String(path.dropFirst(Self.basePath.count + 1)), contentType: raw.headers["content-type"],
            bearerToken: authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst("Bearer ".count)) : nil },
            body: String(decoding: raw.body, as: UTF8.self)
        )
        return state.withLock { state in
            let (reply, refusal) = decide(record, authorization: authorization, body: raw.body, in: &state)
            if case .answer(let status, _, _) = reply { record.status = status }
            record.refusal = refusal
            state.requests.append(record)
            if record.call == "stream:verify", record.status == 200, let verified = state.verificationStates.last {
                // Google answers first and pushes the event afterwards, on its own time.
                state.pushes.append(Task { await self.send(.verification(state: verified)) })
            }
            return reply
        }
    }

    /// The reply to one call, and why it was refused when it was.
    private func decide(
        _ request: FakeGoogleRISCRequest, authorization: String?, body: [UInt8], in state: inout State
    ) -> (FakeGoogleReply, String?) {
        let routes = ["stream:update": "POST", "stream": "GET", "stream/status": "GET", "stream/status:update": "POST", "stream:verify": "POST"]
        guard routes[request.call] == request.method else {
            return (.googleAPIError(404, "NOT_FOUND", "Method not found."), "no such call")
        }
        if case .failure(let refusal) = FakeGoogleRISCAuthorization.check(authorization, accounts: state.accounts, now: Date()) {
            return (refusal.reply, refusal.reason)
        }
        let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        switch request.call {
        case "stream:update":
            guard let delivery = fields?["delivery"] as? [String: Any], let method = delivery["delivery_method"] as? String,
                  let receiver = delivery["url"] as? String, let events = fields?["events_requested"] as? [String]
            else { return (.googleAPIError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."), "not a stream configuration") }
            guard method == Self.pushDeliveryMethod else {
                return (.googleAPIError(400, "INVALID_ARGUMENT", "Unsupported delivery method."), "delivery_method is not push")
            }
            guard Self.isAllowedReceiver(receiver) else {
                return (
                    .googleAPIError(403, "PERMISSION_DENIED", "The receiver URL must use HTTPS on a domain authorized for the project."),
                    "receiver is not https"
                )
            }
            if state.stream == nil { state.status = "enabled" }
            state.stream = Stream(deliveryMethod: method, receiver: receiver, eventsRequested: events)
            return (.ok([:]), nil)
        case "stream/status:update":
            guard let status = fields?["status"] as? String, ["enabled", "disabled"].contains(status) else {
                return (.googleAPIError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."), "status is not enabled or disabled")
            }
            guard state.stream != nil else { return Self.noStream }
            state.status = status
            return (.ok(["status": status]), nil)
        default:
            guard let stream = state.stream else { return Self.noStream }
            switch request.call {
            case "stream":
                return (.ok(configuration(stream)), nil)
            case "stream/status":
                return (.ok(["status": state.status]), nil)
            default:  // stream:verify
                guard fields != nil else { return (.googleAPIError(400, "INVALID_ARGUMENT", "Request contains an invalid argument."), "not JSON") }
                state.verificationStates.append(fields?["state"] as? String ?? "")
                return (.ok([:]), nil)
            }
        }
    }

    private static let noStream: (FakeGoogleReply, String?) = (.googleAPIError(404, "NOT_FOUND", "Requested entity was not found."), "no stream")

    /// The stream configuration document (the Shared Signals shape Google answers).
    private func configuration(_ stream: Stream) -> [String: any Sendable] {
        [
            "iss": transmitter.issuer ?? "https://accounts.google.com/", "aud": clientIDs,
            "jwks_uri": transmitter.keySetURL ?? "https://www.googleapis.com/oauth2/v3/certs",
            "delivery": ["delivery_method": stream.deliveryMethod, "url": stream.receiver],
            "events_supported": Self.supportedEvents, "events_requested": stream.eventsRequested,
            "events_delivered": stream.eventsRequested.filter(Self.supportedEvents.contains),
        ]
    }

    /// HTTPS with a host, or plain HTTP to a loopback host.
    private static func isAllowedReceiver(_ receiver: String) -> Bool {
        guard let url = URLComponents(string: receiver), let host = url.host, !host.isEmpty, url.user == nil else { return false }
        if url.scheme == "https" { return true }
        let loopback = host == "localhost" || host == "::1" || host == "[::1]"
            || (host.split(separator: ".").count == 4 && host.hasPrefix("127.") && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
        return url.scheme == "http" && loopback
    }
}

extension FakeGoogleReply {
    /// Google's API error object, `{"error": {"code", "message", "status"}}`, with `code` as
    /// the HTTP status.
    static func googleAPIError(_ code: Int, _ status: String, _ message: String) -> FakeGoogleReply {
        let body: [String: Any] = ["error": ["code": code, "message": message, "status": status]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return .answer(status: code, headers: jsonHeaders, body: String(decoding: data, as: UTF8.self))
    }
}
