/// Everything ``FakeGoogleServer`` knows, behind one lock: the grants, the fault queues,
/// the holds, the counters and the recorded requests.
struct FakeGoogleState: Sendable {
    var grants: FakeGoogleGrants
    var faults: [FakeGoogleEndpoint: [FakeGoogleFault]] = [:]
    var holds: [FakeGoogleEndpoint: FakeGoogleHold] = [:]
    var allHolds: [FakeGoogleHold] = []
    var latency: Duration = .zero
    var requests: [FakeGoogleRequest] = []
    var calls: [FakeGoogleEndpoint: Int] = [:]
    var tokenCallsInFlight = 0
    var maxConcurrentTokenCalls = 0

    init(clientIDs: [String]) { grants = FakeGoogleGrants(clientIDs: clientIDs) }

    /// Records and counts a request and decides its reply now (as Google would on arrival);
    /// returns the reply with the hold and latency to apply before it is sent.
    mutating func arrive(_ request: FakeGoogleRequest) -> (reply: FakeGoogleReply, hold: FakeGoogleHold?, latency: Duration) {
        requests.append(request)
        guard let endpoint = request.endpoint else {
            return (.answer(status: 404, headers: ["Content-Type": "text/html; charset=UTF-8"], body: "<html>Not Found</html>"), nil, latency)
        }
        calls[endpoint, default: 0] += 1
        if endpoint == .token {
            tokenCallsInFlight += 1
            maxConcurrentTokenCalls = max(maxConcurrentTokenCalls, tokenCallsInFlight)
        }
        let hold = holds[endpoint].flatMap { $0.isReleased ? nil : $0 }
        if let fault = faults[endpoint]?.first {
            faults[endpoint]?.removeFirst()
            if let scripted = FakeGoogleReply(fault: fault) { return (scripted, hold, latency) }
        }
        guard request.method == "POST" else {
            return (.answer(status: 405, headers: ["Allow": "POST", "Content-Type": "text/html; charset=UTF-8"], body: "<html>Method Not Allowed</html>"), hold, latency)
        }
        let reply = endpoint == .token ? grants.token(request) : grants.revoke(request)
        return (reply, hold, latency)
    }

    /// The request's answer is about to leave.
    mutating func depart(_ request: FakeGoogleRequest) {
        if request.endpoint == .token { tokenCallsInFlight -= 1 }
    }
}
