import PayPulsePorts

/// A ``RequestQuota`` in memory, deciding by its ``QuotaRule`` as the stores do; by default
/// one no test reaches (a million posts a minute), for the suites whose subject is not the
/// allowance. ``takes`` counts every call, taken or refused.
package actor InMemoryRequestQuota: RequestQuota {
    private let rule: QuotaRule
    private var uses: [String: [Double]] = [:]
    private var fault: StoreError?
    /// How many takes were asked for, taken or refused.
    package private(set) var takes = 0

    /// A quota of `rule`.
    package init(rule: QuotaRule = QuotaRule(limit: 1_000_000)) {
        self.rule = rule
    }

    /// Makes every take throw `error` (`nil`: none), as an unreachable store does.
    package func setFault(_ error: StoreError?) { fault = error }

    package func take(for user: String, at now: Double, id: String) async throws -> QuotaDecision {
        takes += 1
        if let fault { throw fault }
        let (decision, kept) = rule.decide(uses: uses[user] ?? [], at: now)
        if let kept { uses[user] = kept }
        return decision
    }
}
