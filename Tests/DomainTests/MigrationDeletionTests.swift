import Foundation
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// A disconnect in the source between two migration runs: the target's live copy must not
/// stay connected after the switch (found reviewing the template's cut-over sequence).
@Suite("Migration carries a deletion over")
struct MigrationDeletionTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a grant deleted in the source since the last run is marked and deleted in the target, with a disconnect's window")
    func deletionCarriedOver() async throws {
        let source = SecretsManagerGrantStore(InMemorySecretStore())
        let target = SecretsManagerGrantStore(InMemorySecretStore())
        let user = UserID("carried-1")!
        let fixed = now
        let vault = TokenVault(grants: source, now: { fixed })
        _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
        let first = try await GrantMigration(from: source, to: target, recoveryWindowDays: 10).run()
        #expect(first.copied == 1 && first.complete)

        try await vault.disconnect(user, recoveryWindowDays: 10)
        let second = try await GrantMigration(from: source, to: target, recoveryWindowDays: 10).run()
        #expect(second.deletedInTarget == 1 && second.complete)
        let copy = try await target.state(of: user.rawValue)
        #expect(copy.attributes == (try await source.state(of: user.rawValue)).attributes)
        #expect(copy.attributes[TokenSetTags.status] == "revoked")
        #expect(copy.isScheduledForDeletion)
        #expect(try await !TokenVault(grants: target).connectionState(of: user).isConnected)

        // A third run has nothing left to do.
        let third = try await GrantMigration(from: source, to: target, recoveryWindowDays: 10).run()
        #expect(third.skippedDeleted == 1 && third.deletedInTarget == 0 && third.complete)
    }

    @Test("a disconnect and then a reconnect between runs: the copy scheduled for deletion is restored and rewritten")
    func reconnectBetweenRuns() async throws {
        try await Self.disconnectThenReconnect(from: SecretsManagerGrantStore(InMemorySecretStore()), to: SecretsManagerGrantStore(InMemorySecretStore()))
    }

    /// Connect → migrate → disconnect → migrate → reconnect → migrate → migrate, on `source`
    /// through the vault: the third run restores the target's deleted copy and writes the new
    /// value, the fourth finds nothing to change, and the copy reads connected. Every pairing
    /// of stores the migration suites use runs it.
    static func disconnectThenReconnect(from source: any GrantStore, to target: any GrantStore, prefix: String = "flip-") async throws {
        let user = UserID(prefix + "1")!
        let vault = TokenVault(grants: source)
        func migrate() async throws -> GrantMigration.Report {
            try await GrantMigration(from: source, to: target, userPrefix: prefix, recoveryWindowDays: 7).run()
        }
        _ = try await vault.store(IncomingTokens(accessToken: "a1", refreshToken: "r1", email: "jane@gmail.com"), for: user)
        let first = try await migrate()
        #expect(first.copied == 1 && first.complete)

        try await vault.disconnect(user, recoveryWindowDays: 7)
        let second = try await migrate()
        #expect(second.deletedInTarget == 1 && second.complete)
        #expect(try await target.state(of: user.rawValue).isScheduledForDeletion)

        _ = try await vault.store(IncomingTokens(accessToken: "a2", refreshToken: "r2", email: "jane@gmail.com"), for: user)
        #expect(try await vault.connectionState(of: user).isConnected)
        let third = try await migrate()
        #expect(third.failures.isEmpty && third.updated == 1 && third.complete, "\(third)")
        #expect(try await !target.state(of: user.rawValue).isScheduledForDeletion)
        #expect(try await target.read(user.rawValue).value == (try await source.read(user.rawValue)).value)
        #expect(try await TokenVault(grants: target).connectionState(of: user).isConnected)

        let fourth = try await migrate()
        #expect(fourth.unchanged == 1 && fourth.complete, "\(fourth)")
    }
}
