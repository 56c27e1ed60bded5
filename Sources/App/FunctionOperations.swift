import PayPulseAWS
import PayPulseDomain
import PayPulsePorts

/// What one function's composition can reach: the grant operations its handler calls,
/// whether it reads users, and which configuration secrets it reads; each composition
/// declares its own (``Assembly/reach(of:)``, in `FunctionCompositions.swift`). From these and
/// the stores' and clients' own declarations (``DynamoDBGrantStore/operations(for:)``,
/// ``SecretsManagerGrantStore/secretOperations(for:)``, ``AWSSecretStore/operations(for:)``,
/// each client's ``AWSOperation``s) ``statements(store:)`` derives the least-privilege IAM
/// statements that `paypulse iam` prints and the template check compares.
package struct FunctionOperations: Sendable, Equatable {
    /// The configuration secrets a function reads.
    package enum ConfigurationSecret: Sendable, Equatable {
        /// The PayPulse JWT key (functions that verify a JWT).
        case jwtKey
        /// The Google OAuth client ID(s).
        case googleClientID
    }

    /// The ``GrantStore`` operations the function's handler reaches.
    package var grants: Set<GrantOperation>
    /// Whether it reads users from the user directory.
    package var readsUsers: Bool
    /// The configuration secrets it reads.
    package var secrets: [ConfigurationSecret]
    /// Whether it reads and records the security events acted on (``SecurityEventLedger``).
    package var recordsSecurityEvents: Bool
    /// Whether it counts each user's posts against their allowance (``RequestQuota``).
    package var countsPosts: Bool
    /// Whether it changes grants, and so publishes their lifecycle events (``LifecycleEventBus``).
    package var publishesEvents: Bool
    /// Whether it reads Google's word on accounts (``GoogleAccountWords``); with
    /// ``recordsSecurityEvents``, it records it too.
    package var readsGoogleWord: Bool

    /// Declares a reach.
    package init(
        grants: Set<GrantOperation>, readsUsers: Bool, secrets: [ConfigurationSecret], recordsSecurityEvents: Bool = false, countsPosts: Bool = false,
        publishesEvents: Bool = false, readsGoogleWord: Bool = false
    ) {
        self.readsGoogleWord = readsGoogleWord
        self.grants = grants
        self.readsUsers = readsUsers
        self.secrets = secrets
        self.recordsSecurityEvents = recordsSecurityEvents
        self.countsPosts = countsPosts
        self.publishesEvents = publishesEvents
    }

    /// The least-privilege statements for the function on `store` (``StoreBackend/aws`` or
    /// ``StoreBackend/dynamodb``; the embedded store needs no IAM): one per resource, its
    /// actions sorted, in a stable order.
    package func statements(store: StoreBackend) -> [IAMStatement] {
        var granted: [IAMStatement.Resource: Set<AWSOperation>] = [:]
        func grant(_ operations: [AWSOperation], _ resource: (AWSOperation.ResourceKind) -> IAMStatement.Resource) {
            for operation in operations { granted[resource(operation.resource), default: []].insert(operation) }
        }
        for secret in secrets {
            let resource: IAMStatement.Resource = secret == .jwtKey ? .jwtKeySecret : .googleClientIDSecret
            grant(AWSSecretStore.operations(for: .getSecretValue)) { _ in resource }
        }
        if readsUsers { grant(DynamoDBUserDirectory.userOperations) { _ in .usersTable } }
        if recordsSecurityEvents { grant(DynamoDBSecurityEventLedger.operations) { _ in .securityEventsTable } }
        if readsGoogleWord { grant(DynamoDBGoogleAccountWords.readOperations) { _ in .securityEventsTable } }
        if readsGoogleWord, recordsSecurityEvents { grant(DynamoDBGoogleAccountWords.recordOperations) { _ in .securityEventsTable } }
        if countsPosts { grant(DynamoDBRequestQuota.operations) { _ in .requestQuotasTable } }
        if publishesEvents { grant([EventBridgeBus.putEventsOperation]) { _ in .eventBus } }
        for operation in grants.sorted() {
            switch store {
            case .dynamodb:
                // A lookup queries the index of each indexed attribute; a due listing, the due index.
                let indexes: [IAMStatement.Resource] = operation == .findByAttribute ? IndexedGrantAttribute.allCases.map(IAMStatement.Resource.index) : [.dueIndex]
                for index in indexes {
                    grant(DynamoDBGrantStore.operations(for: operation)) { kind in
                        switch kind {
                        case .index: index
                        case .key: .tokensKey
                        case .any: .any
                        case .table, .secret, .bus: .tokensTable
                        }
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
package struct IAMStatement: Sendable, Equatable {
    /// What the actions are granted on, by its role in the deployment.
    package enum Resource: String, Sendable, Hashable, CaseIterable {
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
        /// Its index of grants by Google account.
        case subjectIndex = "google-sub-index"
        /// Its index of grants by their refresh token's prefix digest.
        case refreshTokenPrefixIndex = "rt-prefix-index"
        /// Its index of grants by their refresh token's hash digest.
        case refreshTokenHashIndex = "rt-hash-index"
        /// The table of security events acted on.
        case securityEventsTable = "security-events-table"
        /// The table of each user's counted posts.
        case requestQuotasTable = "request-quotas-table"
        /// The KMS key that wraps its data keys.
        case tokensKey = "tokens-key"
        /// The EventBridge bus the lifecycle events go to.
        case eventBus = "event-bus"
        /// `*`: actions that take no resource.
        case any = "*"
    }

    /// The resource.
    package var resource: Resource
    /// The IAM actions, sorted.
    package var actions: [String]
    /// For KMS: the encryption context keys every call carries, which the statement
    /// requires (each present, no other); `nil` otherwise.
    package var encryptionContextKeys: [String]?
}

extension IAMStatement.Resource {
    /// The tokens table's index of `attribute` (``GrantStore/users(with:equalTo:)``).
    static func index(_ attribute: IndexedGrantAttribute) -> Self {
        switch attribute {
        case .googleSubject: .subjectIndex
        case .refreshTokenPrefix: .refreshTokenPrefixIndex
        case .refreshTokenHash: .refreshTokenHashIndex
        }
    }
}
