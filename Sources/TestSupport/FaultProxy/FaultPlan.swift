import Synchronization

/// The script and the journal of one or more ``FaultProxy`` instances: which requests get
/// which fault (one-shot or persistent), every request seen, and counts per operation.
///
/// Proxies in front of different peers (moto_server and the fake Google) can share a plan,
/// so that request numbers and the journal follow one handler's whole call sequence.
package final class FaultPlan: Sendable {
    /// One request as the proxy handled it.
    package struct Record: Sendable, Equatable {
        /// Its number over the plan, from 1.
        package var index: Int
        /// The proxy's name, e.g. `aws`.
        package var proxy: String
        /// The operation, e.g. `PutSecretValue` or `token`.
        package var operation: String
        /// Its number among requests of the same operation, from 1.
        package var occurrence: Int
        /// The fault played, if any.
        package var fault: ProxyFault?
        /// The peer's status when the request was forwarded and the peer answered.
        package var upstreamStatus: Int?
    }

    private struct Rule: Sendable {
        var trigger: FaultTrigger
        var fault: ProxyFault
        var persistent: Bool
    }

    private struct State: Sendable {
        var rules: [Rule] = []
        var records: [Record] = []
        var counts: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty plan: every request is forwarded untouched.
    package init() {}

    /// Plays `fault` on the request `trigger` names; a persistent fault also on every later
    /// request it matches (all retries included), a one-shot fault only once.
    package func inject(_ fault: ProxyFault, at trigger: FaultTrigger, persistent: Bool = false) {
        state.withLock { $0.rules.append(Rule(trigger: trigger, fault: fault, persistent: persistent)) }
    }

    /// Removes every fault not yet played; counters and journal stay.
    package func clearFaults() { state.withLock { $0.rules.removeAll() } }

    /// Removes the faults and starts counting from zero again.
    package func reset() { state.withLock { $0 = State() } }

    /// Every request seen since the last reset, in arrival order.
    package var records: [Record] { state.withLock { $0.records } }

    /// Requests per operation since the last reset.
    package var operationCounts: [String: Int] { state.withLock { $0.counts } }

    /// Requests of one operation since the last reset.
    package func count(of operation: String) -> Int { state.withLock { $0.counts[operation] ?? 0 } }

    /// Numbers and records an arriving request and picks its fault (the first rule that
    /// matches; a one-shot rule is used up).
    func arrive(proxy: String, operation: String) -> (index: Int, fault: ProxyFault?) {
        state.withLock { state in
            let occurrence = (state.counts[operation] ?? 0) + 1
            state.counts[operation] = occurrence
            let index = state.records.count + 1
            var fault: ProxyFault?
            if let position = state.rules.firstIndex(where: {
                $0.trigger.matches(index: index, operation: operation, occurrence: occurrence, persistent: $0.persistent)
            }) {
                fault = state.rules[position].fault
                if !state.rules[position].persistent { state.rules.remove(at: position) }
            }
            state.records.append(Record(index: index, proxy: proxy, operation: operation, occurrence: occurrence, fault: fault))
            return (index, fault)
        }
    }

    /// Notes the peer's answer to request `index`.
    func answered(_ index: Int, status: Int) {
        state.withLock { $0.records[index - 1].upstreamStatus = status }
    }
}
