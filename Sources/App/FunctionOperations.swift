import PayPulseAWS
import PayPulseDomain
import PayPulsePorts

/// What one function's composition can reach in AWS: the grant operations its handler
/// calls, whether it reads users, and which configuration secrets it reads. From these and
/// the stores' and clients' own declarations (``DynamoDBGrantStore/operations(for:)``,
/// ``SecretsManagerGrantStore/secretOperations(for:)``, ``AWSSecretStore/operations(for:)``,
/// each client's ``AWSOperation``s) ``statements(store:)`` derives the least-privilege IAM
/// statements that `paypulse iam` prints and the template check compares.
///
/// One declaration per function, to fold into each function's composition.
public struct FunctionOperations: Sendable, Equatable {
    /// The configuration secrets a function reads.
    public enum ConfigurationSecret: Sendable, Equatable {
        /// The PayPulse JWT key (functions that verify a JWT).
        case jwtKey
        /// The Google OAuth client ID(s).
        case googleClientID
    }

    /// The ``GrantStore`` operations the function's handler reaches.
    public var grants: Set<GrantOperation>
    /// Whether it reads users from the user directory.
    public var readsUsers: Bool
    /// The configuration secrets it reads.
    public var secrets: [ConfigurationSecret]

    /// What `function` reaches: store-tokens `TokenVault.store` (read; create, or restore and
    /// mark; replace), user-profile `TokenVault.connectionState` (state) and the profile,
    /// disconnect `TokenVault.current` and `.disconnect` (read, replace or mark, delete),
    /// fresh-token `TokenRefresher.freshTokenSet` (read, replace), token-refresh `RefreshJob`
    /// (listDue) and `TokenRefresher.refreshIfDue` (read, replace, mark).
    public static func of(_ function: HandlerName) -> FunctionOperations {
        switch function {
        case .storeTokens: FunctionOperations(grants: [.read, .create, .restore, .mark, .replace], readsUsers: false, secrets: [.jwtKey, .googleClientID])
        case .userProfile: FunctionOperations(grants: [.state], readsUsers: true, secrets: [.jwtKey])
        case .disconnect: FunctionOperations(grants: [.read, .replace, .mark, .delete], readsUsers: false, secrets: [.jwtKey])
        case .freshToken: FunctionOperations(grants: [.read, .replace], readsUsers: false, secrets: [.googleClientID])
        case .tokenRefresh: FunctionOperations(grants: [.listDue, .read, .replace, .mark], readsUsers: false, secrets: [.googleClientID])
        }
    }

    /// The least-privilege statements for the function on `store` (``StoreBackend/aws`` or
    /// ``StoreBackend/dynamodb``; the embedded store needs no IAM): one per resource, its
    /// actions sorted, in a stable order.
    public func statements(store: StoreBackend) -> [IAMStatement] {
        var granted: [IAMStatement.Resource: Set<AWSOperation>] = [:]
        func grant(_ operations: [AWSOperation], _ resource: (AWSOperation.ResourceKind) -> IAMStatement.Resource) {
            for operation in operations { granted[resource(operation.resource), default: []].insert(operation) }
        }
        for secret in secrets {
            let resource: IAMStatement.Resource = secret == .jwtKey ? .jwtKeySecret : .googleClientIDSecret
            grant(AWSSecretStore.operations(for: .getSecretValue)) { _ in resource }
        }
        if readsUsers { grant(DynamoDBUserDirectory.userOperations) { _ in .usersTable } }
        for operation in grants.sorted() {
            switch store {
            case .dynamodb:
                grant(DynamoDBGrantStore.operations(for: operation)) { kind in
                    switch kind {
                    case .index: .dueIndex
                    case .key: .tokensKey
                    case .any: .any
                    case .table, .secret: .tokensTable
                    }
                }
            case .aws, .embedded:
                for call in SecretsManagerGrantStore.secretOperations(for: operation) {
                    grant(AWSSecretStore.operations(for: call)) { $0 == .any ? .any : .tokenSets }
                }
            }
        }
        if store == .embedded { return [] }
        return granted.map { resource, operations in
            IAMStatement(
                resource: resource, actions: Set(operations.map(\.action)).sorted(),
                encryptionContextKeys: resource == .tokensKey ? DataKeyCache.encryptionContext(userID: "").keys.sorted() : nil
            )
        }.sorted { $0.resource.rawValue < $1.resource.rawValue }
    }
}

/// One IAM statement a function needs: `Allow` of actions on one resource.
public struct IAMStatement: Sendable, Equatable {
    /// What the actions are granted on, by its role in the deployment.
    public enum Resource: String, Sendable, Hashable, CaseIterable {
        /// Every grant's secret, `gmail/user/*`.
        case tokenSets = "token-sets"
        /// The secret of the PayPulse JWT key.
        case jwtKeySecret = "jwt-key-secret"
        /// The secret of the Google client ID(s).
        case googleClientIDSecret = "google-client-id-secret"
        /// The users table.
        case usersTable = "users-table"
        /// The tokens table of the DynamoDB store.
        case tokensTable = "tokens-table"
        /// Its due index.
        case dueIndex = "due-index"
        /// The KMS key that wraps its data keys.
        case tokensKey = "tokens-key"
        /// `*`: actions that take no resource.
        case any = "*"
    }

    /// The resource.
    public var resource: Resource
    /// The IAM actions, sorted.
    public var actions: [String]
    /// For KMS: the encryption context keys every call carries, which the statement
    /// requires (each present, no other); `nil` otherwise.
    public var encryptionContextKeys: [String]?
}
