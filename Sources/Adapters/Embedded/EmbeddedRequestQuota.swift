import PayPulsePorts

/// The ``RequestQuota`` in the embedded SQLite file: the `request_quotas` table, one row per
/// user (its counted uses' times, as ``QuotaRule/text(of:)`` writes them). A take reads, decides and writes in one
/// write transaction, so two processes on the file count each use once; a refused take
/// writes nothing. Each taken use also deletes a few rows whose window has passed, so the
/// table holds about the users of the last minute without a sweeper.
package struct EmbeddedRequestQuota: RequestQuota {
    /// How many expired rows one take deletes at most: more than one, so pruning outpaces
    /// new users; few, so a take stays one short transaction.
    static let pruneLimit = 8

    let database: EmbeddedDatabase
    let rule: QuotaRule

    /// A quota of `rule` on an open database, shared with the other embedded stores.
    package init(database: EmbeddedDatabase, rule: QuotaRule) {
        self.database = database
        self.rule = rule
    }

    /// Takes one use of `user`'s allowance at `now`. The id is not kept: a take is one local
    /// transaction, whose outcome is never lost on its way back.
    /// - Throws: ``StoreError/invalidRequest`` for an empty user; ``StoreError/unavailable``
    ///   when the database cannot be written; ``StoreError/corrupt`` for a row this code did
    ///   not write.
    package func take(for user: String, at now: Double, id: String) async throws -> QuotaDecision {
        if user.isEmpty { throw StoreError.invalidRequest.with(message: "an empty user id") }
        let rule = self.rule
        return try await database.write { connection in
            let text = try connection.queryFirst("SELECT uses FROM request_quotas WHERE user_id = ?1", [.text(user)]) { $0.text(0) }
            guard let uses = QuotaRule.uses(from: text ?? "") else {
                throw StoreError.corrupt.with(message: "the request quota row of \(user) holds a use that is not a time")
            }
            let (decision, kept) = rule.decide(uses: uses, at: now)
            guard let kept else { return decision }
            try connection.run(
                """
                INSERT INTO request_quotas (user_id, uses, expires_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (user_id) DO UPDATE SET uses = excluded.uses, expires_at = excluded.expires_at
                """,
                [.text(user), .text(QuotaRule.text(of: kept)), .real(rule.expiry(of: kept))]
            )
            try connection.run(
                """
                DELETE FROM request_quotas WHERE rowid IN
                    (SELECT rowid FROM request_quotas WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)
                """,
                [.real(now), .integer(Int64(Self.pruneLimit))]
            )
            return decision
        }
    }
}
