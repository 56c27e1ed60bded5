/// The most AWS calls an operation may make (issue 26): `make capacity` fails, naming the
/// operation and its calls, when a measured count goes over, so a change that adds an
/// exchange to a hot path is seen where it is counted.
struct CallBudget: Sendable {
    /// Which store the bound is for.
    enum Store: Sendable { case secretsManager, dynamoDB }

    let store: Store
    /// The operation's measured counts.
    let calls: any KeyPath<Measurements, OperationCalls> & Sendable
    /// At most this many calls to AWS (every service, the client-ID secret included).
    let maxCalls: Int
    /// At most this many KMS requests, where bounded.
    var maxKMS: Int?

    /// Each store-tokens post is counted against its user's allowance first (issue 40: a
    /// consistent `GetItem` and a conditional `PutItem` on the request quotas table), two
    /// calls on top of what storing the grant takes; refresh is not counted.
    static let countedPost = 2

    /// store-tokens then reads Google's word on the account (issue 51: one consistent
    /// `GetItem` on the security-events table, the one more read that issue allows). A
    /// refresh reads it too, within the refresh's own bound of 3.
    static let googleWord = 1

    static let all: [CallBudget] = [
        CallBudget(store: .secretsManager, calls: \.connect, maxCalls: 2 + countedPost + googleWord),
        CallBudget(store: .secretsManager, calls: \.reconnect, maxCalls: 4 + countedPost + googleWord),
        CallBudget(store: .secretsManager, calls: \.refresh, maxCalls: 3),
        CallBudget(store: .dynamoDB, calls: \.reconnectKeyCached, maxCalls: 2 + countedPost + googleWord, maxKMS: 0),
    ]

    /// The budgets `secretsManager` and `dynamoDB` go over, one line each.
    static func overruns(secretsManager: Measurements, dynamoDB: Measurements) -> [String] {
        all.compactMap { budget in
            let operation = (budget.store == .secretsManager ? secretsManager : dynamoDB)[keyPath: budget.calls]
            let storeName = budget.store == .secretsManager ? "Secrets Manager" : "DynamoDB"
            if operation.total > budget.maxCalls {
                return "\(operation.name) on \(storeName): \(operation.total) AWS calls, at most \(budget.maxCalls) allowed (\(operation.calls))"
            }
            if let maxKMS = budget.maxKMS, operation.kms > maxKMS {
                return "\(operation.name) on \(storeName): \(operation.kms) KMS calls, at most \(maxKMS) allowed (\(operation.calls))"
            }
            return nil
        }
    }
}
