import PayPulsePorts

/// The ``RequestQuota`` on a DynamoDB table: one item per user, key `user_id` (S), with
/// `uses` (S, the counted uses' times in whole milliseconds since 1970, space-separated,
/// oldest first), `ids` (S, the posts' ids of the latest takes, as many as the limit,
/// space-separated), `version` (N) and `expires_at` (N, whole seconds, the table's time to
/// live: when the newest use leaves the window, so idle users' items go away by themselves).
///
/// A take reads the item consistently, decides by the ``QuotaRule``, and writes only a taken
/// use, with a compare-and-swap on `version`. A swap lost to another instance's take reads
/// again; losing ``swapAttempts`` in a row happens only under one user's own flood of
/// concurrent posts, and is answered as a spent allowance, never as another write. A swap
/// whose answer was lost after it landed fails its condition on the retry, and the read
/// that follows finds the post's own id: that use is counted, and nothing new is.
package struct DynamoDBRequestQuota: RequestQuota {
    /// The key attribute.
    package static let userAttribute = "user_id"
    /// The expiry attribute, the table's time to live.
    package static let expiresAtAttribute = "expires_at"
    /// What a take calls, both on the table.
    package static let operations = [DynamoDBClient.getItemOperation, DynamoDBClient.putItemOperation]
    /// How many swaps one take tries before it calls the allowance spent.
    static let swapAttempts = 4

    let client: DynamoDBClient
    let table: String
    let rule: QuotaRule

    /// A quota of `rule` on `table` through `client`.
    package init(client: DynamoDBClient, table: String, rule: QuotaRule) {
        self.client = client
        self.table = table
        self.rule = rule
    }

    /// The table as `paypulse setup` creates it and template.yaml declares it (checked against
    /// `deploy/request-quotas-table.json`): partition key `user_id`, nothing else.
    package static func table(named name: String) -> DynamoDBTableDefinition {
        DynamoDBTableDefinition(name: name, partitionKey: .init(userAttribute, .string))
    }

    /// Creates the table with its time to live on `expires_at`; an existing table is left as it is.
    /// - Throws: ``StoreError`` when DynamoDB refuses or cannot be reached.
    package func createTableIfNeeded() async throws {
        try await client.createTableIfNeeded(Self.table(named: table), timeToLive: Self.expiresAtAttribute)
    }

    /// Takes one use of `user`'s allowance at `now`.
    /// - Throws: ``StoreError``: `invalid_request` for an empty user, `unavailable` when
    ///   DynamoDB cannot be reached, `corrupt` for an item this code did not write.
    package func take(for user: String, at now: Double, id: String) async throws -> QuotaDecision {
        if user.isEmpty { throw StoreError.invalidRequest.with(message: "an empty user id") }
        if id.isEmpty || id.contains(" ") { throw StoreError.invalidRequest.with(message: "a post id must be one word") }
        for _ in 0..<Self.swapAttempts {
            let item = try await StoreError.mapping { try await client.getItem(table: table, key: [Self.userAttribute: .string(user)]) }
            let (uses, ids, version) = try Self.read(item, user: user)
            if ids.contains(id) { return .taken }  // this post's own use, written by an attempt whose answer was lost
            let (decision, kept) = rule.decide(uses: uses, at: now)
            guard let kept else { return decision }
            if try await swap(user: user, uses: kept, ids: Array((ids + [id]).suffix(max(rule.limit, 1))), after: version) { return decision }
        }
        return .exhausted(retryAfter: 1)
    }

    /// Writes `uses` and `ids` when the item is still at `version` (`nil`: still absent);
    /// `false` when the condition failed (another take got there first, or this one did).
    private func swap(user: String, uses: [Double], ids: [String], after version: Int64?) async throws -> Bool {
        let item: DynamoDBItem = [
            Self.userAttribute: .string(user), "uses": .string(QuotaRule.text(of: uses)), "ids": .string(ids.joined(separator: " ")),
            "version": .integer((version ?? 0) + 1), Self.expiresAtAttribute: .integer(Int64(rule.expiry(of: uses).rounded(.up))),
        ]
        let condition = version == nil ? "attribute_not_exists(#user)" : "#version = :version"
        let placeholders = version.map { DynamoDBExpressionValues(names: ["#version": "version"], values: [":version": .integer($0)]) }
            ?? DynamoDBExpressionValues(names: ["#user": Self.userAttribute], values: [:])
        do {
            try await client.putItem(table: table, item: item, condition: condition, placeholders: placeholders)
            return true
        } catch let error as AWSError where error.isConditionalCheckFailed {
            return false
        } catch {
            throw StoreError(mapping: error)
        }
    }

    /// The uses (seconds), the latest posts' ids and the version of `item`; none and `nil`
    /// for no item (an item of a release before the ids has none).
    private static func read(_ item: DynamoDBItem?, user: String) throws -> (uses: [Double], ids: [String], version: Int64?) {
        guard let item else { return ([], [], nil) }
        guard let version = item["version"]?.integerValue, let text = item["uses"]?.stringValue else {
            throw StoreError.corrupt.with(message: "the request quota item of \(user) lacks its uses or version")
        }
        guard let uses = QuotaRule.uses(from: text) else {
            throw StoreError.corrupt.with(message: "the request quota item of \(user) holds a use that is not a time")
        }
        return (uses, (item["ids"]?.stringValue ?? "").split(separator: " ").map(String.init), version)
    }
}
