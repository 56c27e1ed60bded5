/// One misbehaviour ``FaultProxy`` can play for a request, between our client and its peer.
package enum ProxyFault: Sendable, Hashable, CustomStringConvertible {
    /// Wait this long, then forward as usual.
    case latency(Duration)
    /// Answer this status (500 or 503) in the peer's error dialect without forwarding.
    case status(Int)
    /// Refuse as the peer does when throttling, without forwarding: AWS sends HTTP 400
    /// `ThrottlingException`, Google 429 `rate_limit_exceeded`.
    case throttle
    /// Reset the connection before the request reaches the peer.
    case resetBeforeForward
    /// Forward, let the peer answer, then reset the connection instead of relaying: the
    /// write reached the store but the caller never hears.
    case resetAfterForward
    /// Forward, then relay the peer's answer with a `Content-Length` larger than the bytes
    /// sent and close.
    case truncate
    /// Read the request and never answer, until the client gives up (or the proxy stops).
    case stall
    /// Forward, let the peer answer, then never relay it: the write landed, and the client
    /// times out waiting.
    case stallAfterForward
    /// Refuse the caller's permission without forwarding: AWS sends HTTP 400
    /// `AccessDeniedException`, Google 403. Not one of ``all(latency:)``: no store call of
    /// ours is refused so in a deployment that works.
    case deny
    /// Answer a listing as empty without forwarding (`ListSecrets`: no secrets; DynamoDB
    /// `Query` or `Scan`: no items), as a listing that lags behind the writes does: AWS says
    /// `ListSecrets` may not show changes of the last five minutes, and an index is
    /// eventually consistent. Not one of ``all(latency:)``.
    case emptyListing
    /// Hold the request at `gate` until the test opens it, then forward: a write in flight
    /// while something else happens. Not one of ``all(latency:)``.
    case hold(ProxyGate)

    /// Every kind once, for matrices (latency of `latency`).
    package static func all(latency: Duration = .milliseconds(200)) -> [ProxyFault] {
        [.latency(latency), .status(500), .status(503), .throttle, .resetBeforeForward, .resetAfterForward, .truncate, .stall]
    }

    /// Whether the peer receives the request (and so may change state) under this fault.
    package var forwards: Bool {
        switch self {
        case .latency, .resetAfterForward, .truncate, .stallAfterForward, .hold: true
        case .status, .throttle, .resetBeforeForward, .stall, .deny, .emptyListing: false
        }
    }

    /// A short name for tables, e.g. `reset-after`.
    package var description: String {
        switch self {
        case .latency: "latency"
        case .status(let status): "\(status)"
        case .throttle: "throttle"
        case .resetBeforeForward: "reset-before"
        case .resetAfterForward: "reset-after"
        case .truncate: "truncate"
        case .stall: "stall"
        case .stallAfterForward: "stall-after"
        case .deny: "deny"
        case .emptyListing: "empty-listing"
        case .hold: "hold"
        }
    }
}

/// Which requests a fault hits. Counting starts at 1 and runs over every proxy sharing a
/// ``FaultPlan``.
package enum FaultTrigger: Sendable, Hashable, CustomStringConvertible {
    /// The n-th request through the plan's proxies.
    case request(Int)
    /// The n-th request of an operation: the action of `X-Amz-Target` (`PutSecretValue`,
    /// `GetItem`) or, without that header, the path without its slash (`token`, `revoke`).
    case operation(String, occurrence: Int)
    /// Every `period`-th request of an operation (the `period`-th, twice that, ...), for a
    /// soak's steady share of faults: inject it persistent, or it plays once.
    case every(String, period: Int)

    package var description: String {
        switch self {
        case .request(let index): "request #\(index)"
        case .operation(let name, let occurrence): "\(name) #\(occurrence)"
        case .every(let name, let period): "every \(period)th \(name)"
        }
    }

    /// Whether a request matches; a persistent rule also matches every later one.
    func matches(index: Int, operation: String, occurrence: Int, persistent: Bool) -> Bool {
        switch self {
        case .request(let wanted):
            persistent ? index >= wanted : index == wanted
        case .operation(let name, let wanted):
            name == operation && (persistent ? occurrence >= wanted : occurrence == wanted)
        case .every(let name, let period):
            name == operation && period > 0 && occurrence % period == 0
        }
    }
}
