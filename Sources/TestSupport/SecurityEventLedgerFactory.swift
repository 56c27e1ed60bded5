#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseAWS
import PayPulseEmbedded
import PayPulsePorts

/// A way to get a ``SecurityEventLedger`` for the contract suite in `Tests/ContractTests`,
/// which runs the same tests against every factory in ``all``. Apart from ``StoreFactory``
/// because a ledger takes the test's clock, and so that the other contracts do not create a
/// ledger table they never use.
package struct SecurityEventLedgerFactory: Sendable, CustomStringConvertible {
    /// A ledger one test works with.
    package struct Made: Sendable {
        /// The ledger under test, empty.
        package var ledger: any SecurityEventLedger
        /// Google's word on accounts, in the same table or file as the ledger, empty.
        package var words: any GoogleAccountWords
        /// Releases what the factory made (e.g. removes a temporary directory).
        package var tearDown: @Sendable () async -> Void

        /// Wraps a ledger, its words and how to release them.
        package init(ledger: any SecurityEventLedger, words: any GoogleAccountWords, tearDown: @escaping @Sendable () async -> Void = {}) {
            self.ledger = ledger
            self.words = words
            self.tearDown = tearDown
        }
    }

    /// The name test reports show, e.g. `embedded`.
    package let name: String
    /// Makes a fresh, empty ledger whose records expire by the clock it is given.
    package let make: @Sendable (_ now: @escaping @Sendable () -> Date) async throws -> Made
    /// Makes a ledger that fails as an unreachable store does (a scripted fault in memory, a
    /// refusing port for DynamoDB); `nil` for the embedded file, whose SQLite failures
    /// `Tests/EmbeddedTests` provoke.
    package let unreachable: (@Sendable () async throws -> any SecurityEventLedger)?

    /// Creates a factory.
    package init(
        name: String, make: @escaping @Sendable (_ now: @escaping @Sendable () -> Date) async throws -> Made,
        unreachable: (@Sendable () async throws -> any SecurityEventLedger)?
    ) {
        self.name = name
        self.make = make
        self.unreachable = unreachable
    }

    package var description: String { name }

    /// Makes a ledger on `now`, runs `body` with it and tears it down, also when `body` throws.
    package func withLedger<T>(now: @escaping @Sendable () -> Date, _ body: (any SecurityEventLedger) async throws -> T) async throws -> T {
        try await withMade(now: now) { try await body($0.ledger) }
    }

    /// Makes a ledger and its words on `now`, runs `body` with them and tears them down.
    package func withMade<T>(now: @escaping @Sendable () -> Date, _ body: (Made) async throws -> T) async throws -> T {
        let made = try await make(now)
        do {
            let result = try await body(made)
            await made.tearDown()
            return result
        } catch {
            await made.tearDown()
            throw error
        }
    }

    /// Every ledger: in memory, embedded, and DynamoDB on moto.
    package static var all: [SecurityEventLedgerFactory] { [inMemory, embedded, dynamoDB] }

    /// The in-memory ledger the handler unit tests use: the contract keeps it honest.
    package static var inMemory: SecurityEventLedgerFactory {
        SecurityEventLedgerFactory(name: "in-memory") { now in
            Made(ledger: InMemorySecurityEventLedger(now: now), words: InMemoryGoogleAccountWords(now: now))
        } unreachable: {
            let ledger = InMemorySecurityEventLedger()
            await ledger.setFault(.unavailable)
            return ledger
        }
    }

    /// The embedded SQLite ledger, in a fresh temporary state directory per test.
    package static var embedded: SecurityEventLedgerFactory {
        SecurityEventLedgerFactory(name: "embedded", make: { now in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("paypulse-ledger-\(UUID().uuidString)").path
            let logger = Logger(label: "paypulse.contract.ledger") { _ in SwiftLogNoOpLogHandler() }
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: logger)
            return Made(
                ledger: EmbeddedSecurityEventLedger(database: database, logger: logger, now: now),
                words: EmbeddedGoogleAccountWords(database: database, now: now),
                tearDown: { try? FileManager.default.removeItem(atPath: directory) }
            )
        }, unreachable: nil)
    }

    /// A DynamoDB table of its own on moto_server (``MotoServer/shared()``), created as
    /// `paypulse setup` creates it; unreachable: an endpoint on a loopback port that refuses
    /// connections.
    package static var dynamoDB: SecurityEventLedgerFactory {
        SecurityEventLedgerFactory(name: "dynamodb-on-moto") { now in
            let client = try AWSTestClients.dynamoDB(endpoint: try await MotoServer.shared().endpoint)
            let table = "events-\(UUID().uuidString.lowercased())"
            let ledger = DynamoDBSecurityEventLedger(client: client, table: table, now: now)
            try await ledger.createTableIfNeeded()
            return Made(ledger: ledger, words: DynamoDBGoogleAccountWords(client: client, table: table, now: now))
        } unreachable: {
            let endpoint = "http://127.0.0.1:\(try RefusingLoopbackPort.make())"
            return DynamoDBSecurityEventLedger(client: try AWSTestClients.dynamoDB(endpoint: endpoint), table: "events-unreachable")
        }
    }
}
