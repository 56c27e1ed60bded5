import Foundation
import PayPulseAWS
import PayPulseApp
import PayPulsePorts
import PayPulseTestSupport

/// The token store the operations are measured on: the variables that select it, the
/// prefix of the users measured on it (both stores share one moto), and, for the DynamoDB
/// store, its table, whose items are read around the proxy before and after each operation.
struct MeasuredStore: Sendable {
    let name: String
    /// Variables each function gets besides the bench's.
    let environment: [String: String]
    /// Measured users are `<prefix>0`, `<prefix>1`, ...
    let userPrefix: String
    /// The tokens table's shape; `nil` where grants are secrets.
    let table: TableShape?
    private let client: DynamoDBClient?
    /// The store itself, straight to moto (for ``grantItem(like:accessTokenBytes:refreshTokenBytes:)``).
    private let grants: (any GrantStore)?

    /// Grants as secrets, as deployed today.
    static let secretsManager = MeasuredStore(name: "Secrets Manager", environment: [:], userPrefix: "cap-", table: nil, client: nil, grants: nil)

    /// The DynamoDB token store with KMS envelope encryption (`PAYPULSE_STORE=dynamodb`): a
    /// KMS key made on moto, and the table made by the store itself, as `paypulse setup
    /// --store dynamodb` makes it (with whatever indexes the store declares).
    static func dynamoDB(on bench: CapacityBench) async throws -> MeasuredStore {
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: bench.moto.endpoint))
        let keyID = try await kms.createKey(description: "paypulse capacity model")
        let tableName = "paypulse-gmail-tokens"
        let environment = ["PAYPULSE_STORE": "dynamodb", "TOKENS_TABLE": tableName, "PAYPULSE_KMS_KEY_ID": keyID]
        let configuration = try bench.configuration(environment, endpoint: bench.moto.endpoint)
        let assembly = try Assembly.build(configuration: configuration, logger: bench.logger)
        guard let grants = try assembly.grantStore() as? DynamoDBGrantStore else {
            throw CapacityError("PAYPULSE_STORE=dynamodb built no DynamoDBGrantStore")
        }
        try await grants.createTableIfNeeded()
        let table = try await TableShape.describe(tableName, endpoint: bench.moto.endpoint)
        return MeasuredStore(
            name: "DynamoDB + KMS", environment: environment, userPrefix: "dyn-", table: table,
            client: try AWSTestClients.dynamoDB(endpoint: bench.moto.endpoint), grants: grants
        )
    }

    /// The stored items of `users` (`nil` for none), or nothing where grants are not items.
    func items(_ users: [String]) async throws -> [DynamoDBItem?] {
        guard let client, let table else { return [] }
        var items: [DynamoDBItem?] = []
        for user in users {
            items.append(try await client.getItem(table: table.name, key: [table.partitionKey: .string(user)]))
        }
        return items
    }

    /// The item of a grant like `user`'s but with Google's tokens `accessTokenBytes` and
    /// `refreshTokenBytes` long (the fake Google's are a few bytes) and a user id as long
    /// as a UUID, written by the store itself (`create`, so its sealing, attributes and
    /// index keys are the store's), then read back from moto. No token is printed.
    func grantItem(like user: String, accessTokenBytes: Int, refreshTokenBytes: Int) async throws -> DynamoDBItem {
        guard let grants, let client, let table else { throw CapacityError("\(name) stores no items") }
        let current = try await grants.read(user)
        let attributes = try await grants.state(of: user).attributes
        guard var value = try JSONSerialization.jsonObject(with: Data(current.value.utf8)) as? [String: Any] else {
            throw CapacityError("the grant of \(user) is not a JSON object")
        }
        value["access_token"] = "ya29." + String(repeating: "a", count: max(accessTokenBytes - 5, 0))
        value["refresh_token"] = "1//" + String(repeating: "r", count: max(refreshTokenBytes - 3, 0))
        let json = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
        let typical = UUID().uuidString.lowercased()
        try await grants.create(typical, value: json, attributes: attributes)
        guard let item = try await client.getItem(table: table.name, key: [table.partitionKey: .string(typical)]) else {
            throw CapacityError("the grant written for \(typical) is not in \(table.name)")
        }
        return item
    }
}
