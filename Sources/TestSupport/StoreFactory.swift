#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts
import PayPulseDomain

/// A way to get a ``SecretStore``, a ``GrantStore`` and a ``UserDirectory`` for the contract suites in
/// `Tests/ContractTests`, which run the same tests against every factory in ``all``.
///
/// A factory may hand out stores that already hold data (a shared moto server): tests
/// use unique names and never assume the store is empty.
package struct StoreFactory: Sendable, CustomStringConvertible {
    /// The stores one test works with.
    package struct Stores: Sendable {
        /// The secret store under test.
        package var secrets: any SecretStore
        /// The grant store under test: by default ``SecretsManagerGrantStore`` over ``secrets``.
        package var grants: any GrantStore
        /// The user directory under test.
        package var users: any UserDirectory
        /// Releases what the factory made (e.g. removes a temporary directory).
        package var tearDown: @Sendable () async -> Void

        /// Creates a set of stores.
        package init(
            secrets: any SecretStore, grants: (any GrantStore)? = nil, users: any UserDirectory,
            tearDown: @escaping @Sendable () async -> Void = {}
        ) {
            self.secrets = secrets
            self.grants = grants ?? SecretsManagerGrantStore(secrets)
            self.users = users
            self.tearDown = tearDown
        }
    }

    /// The name test reports show, e.g. `embedded`.
    package let name: String
    /// Makes fresh stores for one test.
    package let make: @Sendable () async throws -> Stores

    /// Creates a factory.
    package init(name: String, make: @escaping @Sendable () async throws -> Stores) {
        self.name = name
        self.make = make
    }

    package var description: String { name }

    /// Makes stores, runs `body` with them and tears them down, also when `body` throws.
    package func withStores<T>(_ body: (Stores) async throws -> T) async throws -> T {
        let stores = try await make()
        do {
            let result = try await body(stores)
            await stores.tearDown()
            return result
        } catch {
            await stores.tearDown()
            throw error
        }
    }

    /// Every factory the contract suites run against.
    package static var all: [StoreFactory] { [embedded, moto, inMemory] }

    /// Every factory whose ``Stores/grants`` the `GrantStore` contract runs on: ``all`` and
    /// ``dynamoDB``.
    package static var allGrantStores: [StoreFactory] { all + [dynamoDB] }

    /// Grants in a DynamoDB table of their own with KMS envelope encryption
    /// (``DynamoDBGrantStore``), on moto_server (``MotoServer/shared()``): a fresh table and
    /// KMS key per test. Its ``Stores/secrets`` (the client-ID secret's store) is Secrets
    /// Manager on the same moto.
    package static var dynamoDB: StoreFactory {
        StoreFactory(name: "dynamodb-on-moto") {
            let endpoint = try await MotoServer.shared().endpoint
            let suffix = UUID().uuidString.lowercased()
            let dynamoDB = try AWSTestClients.dynamoDB(endpoint: endpoint)
            let directory = DynamoDBUserDirectory(client: dynamoDB, table: "users-\(suffix)")
            try await directory.createTableIfNeeded()
            let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: endpoint))
            let keyID = try await kms.createKey(description: "paypulse grants \(suffix)")
            let grants = DynamoDBGrantStore(
                client: dynamoDB, table: "grants-\(suffix)", cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: keyID)), due: .defaultRefresh
            )
            try await grants.createTableIfNeeded()
            return Stores(
                secrets: AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: endpoint)),
                grants: grants, users: directory
            )
        }
    }

    /// Like ``moto`` but on a moto_server of its own, for heavy tests: the test moto answers
    /// one request at a time (scripts/moto-server.py), so a thousand writes on the shared
    /// one would hold every other test's requests back.
    package static var privateMoto: StoreFactory {
        StoreFactory(name: "aws-on-private-moto") {
            let server = try await MotoServer.launchPrivate()
            let directory = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: server.endpoint), table: "paypulse-users")
            try await directory.createTableIfNeeded()
            return Stores(
                secrets: AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)),
                users: directory,
                tearDown: { withExtendedLifetime(server) {} }
            )
        }
    }

    /// The in-memory store the handler unit tests use: the contract keeps it honest.
    package static var inMemory: StoreFactory {
        StoreFactory(name: "in-memory") {
            Stores(secrets: InMemorySecretStore(), users: InMemoryUserDirectory())
        }
    }

    /// Secrets Manager and DynamoDB on moto_server (``MotoServer/shared()``), with a fresh
    /// users table per test.
    package static var moto: StoreFactory {
        StoreFactory(name: "aws-on-moto") {
            let endpoint = try await MotoServer.shared().endpoint
            let directory = DynamoDBUserDirectory(
                client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "users-\(UUID().uuidString.lowercased())"
            )
            try await directory.createTableIfNeeded()
            return Stores(
                secrets: AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: endpoint)),
                users: directory
            )
        }
    }

    /// The embedded SQLite store, in a fresh temporary state directory per test.
    package static var embedded: StoreFactory {
        StoreFactory(name: "embedded") {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("paypulse-contract-\(UUID().uuidString)").path
            let logger = Logger(label: "paypulse.contract.embedded") { _ in SwiftLogNoOpLogHandler() }
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: logger)
            return Stores(
                secrets: EmbeddedSecretStore(database: database, logger: logger),
                users: EmbeddedUserDirectory(database: database, logger: logger),
                tearDown: { try? FileManager.default.removeItem(atPath: directory) }
            )
        }
    }
}
