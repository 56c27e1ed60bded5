/// The AWS calls one operation made, by API name, as counted on the wire.
struct OperationCalls: Sendable {
    /// What was done, e.g. `refresh one due grant`.
    let name: String
    /// Calls by operation, e.g. `["GetSecretValue": 1, "PutSecretValue": 1]`.
    let calls: [String: Int]

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

    /// The same counts divided by `n` (per grant, out of a run over `n`).
    /// - Throws: when a count is not a multiple of `n`: the grants did not all cost the same.
    func per(_ n: Int, name: String) throws -> OperationCalls {
        guard calls.values.allSatisfy({ $0 % n == 0 }) else { throw CapacityError("\(self.name): \(summary) is not \(n) equal grants' calls") }
        return OperationCalls(name: name, calls: calls.mapValues { $0 / n })
    }

    /// `Get 1, Put 1, ...` for tables.
    var summary: String {
        calls.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
