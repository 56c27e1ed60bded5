import PayPulsePorts

/// The ``RequestQuota`` in the embedded SQLite file: the `request_quotas` table, one row per
/// user (its counted uses' times, space-separated). A take reads, decides and writes in one
/// write transaction, so two processes on the file count each use once; a refused take
/// writes nothing.
package struct EmbeddedRequestQuota: RequestQuota {
    let database: EmbeddedDatabase
    let rule: QuotaRule

    /// A quota of `rule` on an open database, shared with the other embedded stores.
    package init(database: EmbeddedDatabase, rule: QuotaRule) {
        self.database = database
        self.rule = rule
    }

    /// Takes one use of `user`'s allowance at `now`.
    /// - Throws: ``StoreError/invalidRequest`` for an empty user; ``StoreError/unavailable``
    ///   when the database cannot be written; ``StoreError/corrupt`` for a row this code did
    ///   not write.
    package func take(for user: String, at now: Double) async throws -> QuotaDecision {
        if user.isEmpty { throw StoreError.invalidRequest.with(message: "an empty user id") }
        let rule = self.rule
        return try await database.write { connection in
            let text = try connection.queryFirst("SELECT uses FROM request_quotas WHERE user_id = ?1", [.text(user)]) { $0.text(0) }
            let uses = (text ?? "").split(separator: " ").map { Double($0) }
            guard uses.allSatisfy({ $0 != nil }) else {
                throw StoreError.corrupt.with(message: "the request quota row of \(user) holds a use that is not a time")
            }
            let (decision, kept) = rule.decide(uses: uses.map { $0! }, at: now)
            if let kept {
                try connection.run(
                    "INSERT INTO request_quotas (user_id, uses) VALUES (?1, ?2) ON CONFLICT (user_id) DO UPDATE SET uses = excluded.uses",
                    [.text(user), .text(kept.map { String($0) }.joined(separator: " "))]
                )
            }
            return decision
        }
    }
}
