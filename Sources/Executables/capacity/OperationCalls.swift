import PayPulseAWS

/// The AWS calls one operation made, by API name, as counted on the wire.
struct OperationCalls: Sendable {
    /// What was done, e.g. `refresh one due grant`.
    let name: String
    /// Calls by operation, e.g. `["GetSecretValue": 1, "PutSecretValue": 1]`.
    let calls: [String: Int]
    /// On the DynamoDB store: the items of the users the operation touched, read from moto
    /// (around the counting proxy) before and after it; what its capacity units are reckoned
    /// from (``DynamoDBOperationCost``). Empty elsewhere.
    var items: [ItemChange] = []

    /// Every call.
    var total: Int { calls.values.reduce(0, +) }

    /// Calls that count against Secrets Manager's shared 50/s write quota.
    var writes: Int { ["PutSecretValue", "UpdateSecretVersionStage", "UpdateSecret"].reduce(0) { $0 + (calls[$1] ?? 0) } }

    /// Calls that count against the 50/s tagging quota.
    var tagWrites: Int { (calls["TagResource"] ?? 0) + (calls["UntagResource"] ?? 0) }

    /// Secrets Manager reads (10,000/s and more).
    var reads: Int { ["GetSecretValue", "DescribeSecret"].reduce(0) { $0 + (calls[$1] ?? 0) } }

    /// `ListSecrets` pages (100/s).
    var listings: Int { calls["ListSecrets"] ?? 0 }

    /// DynamoDB item reads (on the users table too: both tables are DynamoDB on-demand).
    var dynamoDBItemReads: Int { count(Self.dynamoDBItemReadNames) }
    /// DynamoDB listings (`Query`, `Scan`).
    var dynamoDBListings: Int { count(Self.dynamoDBListingNames) }
    /// DynamoDB writes.
    var dynamoDBWrites: Int { count(Self.dynamoDBWriteNames) }
    /// KMS requests (the cryptographic operations, which share one request quota).
    var kms: Int { count(Self.kmsNames) }
    /// Everything else: on the DynamoDB store, the Secrets Manager calls left (the client-ID secret).
    var others: Int { total - dynamoDBItemReads - dynamoDBListings - dynamoDBWrites - kms }

    static let dynamoDBItemReadNames: Set = ["GetItem", "BatchGetItem"]
    static let dynamoDBListingNames: Set = ["Query", "Scan"]
    static let dynamoDBWriteNames: Set = ["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"]
    static let kmsNames: Set = ["Decrypt", "Encrypt", "GenerateDataKey", "GenerateDataKeyWithoutPlaintext", "ReEncrypt"]

    private func count(_ names: Set<String>) -> Int { calls.filter { names.contains($0.key) }.values.reduce(0, +) }

    /// The same counts divided by `n` (per grant, out of a run over `n`); the items stay,
    /// one change per grant.
    /// - Throws: when a count is not a multiple of `n`: the grants did not all cost the same.
    func per(_ n: Int, name: String) throws -> OperationCalls {
        guard calls.values.allSatisfy({ $0 % n == 0 }) else { throw CapacityError("\(self.name): \(summary) is not \(n) equal grants' calls") }
        return OperationCalls(name: name, calls: calls.mapValues { $0 / n }, items: items)
    }

    /// `Get 1, Put 1, ...` for tables.
    var summary: String {
        calls.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

/// One user's stored item before and after an operation (`nil`: none).
struct ItemChange: Sendable {
    let before: DynamoDBItem?
    let after: DynamoDBItem?
}
