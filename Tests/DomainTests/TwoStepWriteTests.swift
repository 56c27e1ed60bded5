import Foundation
import Logging
import PayPulseAWS
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// Secrets Manager's writes in two steps, each step failing after the first landed: a value
/// whose tags were refused, and a conditional delete whose compare or restore failed after
/// the deletion. What was stored must read as stored, its event must reach the bus, and a
/// reconnect must never stay deleted, by the refresh run at the latest.
@Suite("Two-step writes: tags refused after the value, a delete left half done")
struct TwoStepWriteTests {
    let bus = LifecycleOutboxTests.Bus()
    let secrets = InMemorySecretStore()
    let google = InMemoryGoogleOAuth()
    let quiet = Logger(label: "two-step") { _ in SwiftLogNoOpLogHandler() }
    var grants: any GrantStore { SecretsManagerGrantStore(secrets) }

    func vault(_ secrets: any SecretStore) -> TokenVault {
        TokenVault(grants: SecretsManagerGrantStore(secrets), events: LifecyclePublisher(bus: bus, metrics: DiscardedMetrics(), logger: quiet))
    }

    func tokens(_ refreshToken: String, expiresIn: Int = 3600) -> IncomingTokens {
        google.addGrant(refreshToken, subject: "2001", email: nil)
        return IncomingTokens(
            accessToken: "ya29.two-step", refreshToken: refreshToken, expiresIn: expiresIn, scopes: [GmailScopes.readonly], subject: "2001",
            clientID: google.clientID
        )
    }

    /// One refresh run over `user` alone.
    func refreshRun(_ user: UserID) async throws {
        let refresher = TokenRefresher(vault: vault(secrets), google: google, clients: GoogleClients(ids: [google.clientID]), windowSeconds: 900)
        _ = try await RefreshJob(grants: grants, refresher: refresher, settings: RefreshSettings(), userPrefix: user.rawValue).run(deadline: nil, logger: quiet)
    }

    /// A grant the refresh run found revoked at Google: its tags say revoked, not
    /// refreshable, nothing pending (its `Gmail Revoked` is out).
    func revokedGrant(_ user: UserID) async throws {
        _ = try await vault(secrets).store(tokens("1//old-\(user)", expiresIn: 60), for: user)
        try await google.revoke(token: "1//old-\(user)")
        try await refreshRun(user)
        #expect(try await vault(secrets).current(of: user)?.tokenSet.status == .revoked)
        #expect(TokenSetTags.isSettled(try await grants.state(of: user.rawValue).attributes))
    }

    @Test("a reconnect whose tag writes are refused is stored, answered as stored, reads connected and has its event out after at most two runs",
          arguments: [false, true])
    func reconnectWithTagsRefused(busDown: Bool) async throws {
        let user = UserID("two-step-tags-\(busDown)")!
        try await revokedGrant(user)
        let types = bus.types

        await secrets.setFault { $0 == "TagResource" ? StoreError.unavailable.with(message: "TagResource throttled") : nil }
        bus.fail(busDown)
        let stored = try? await vault(secrets).store(tokens("1//new-\(user)"), for: user)
        await secrets.setFault(nil)
        bus.fail(false)
        #expect(stored != nil, "the value landed: the store must answer it stored, not unavailable")
        #expect(try await vault(secrets).current(of: user)?.tokenSet.status == .active)

        try await refreshRun(user)
        if try await vault(secrets).connectionState(of: user) != .connected { try await refreshRun(user) }
        #expect(try await vault(secrets).connectionState(of: user) == .connected, "the tags rewritten from the value")
        #expect(Array(bus.types.dropFirst(types.count)) == ["Gmail Reconnected"], "\(bus.types)")
        #expect(try await vault(secrets).current(of: user)?.tokenSet.lifecycle?.hasWork == false)
    }

    @Test("a late retag that fails is found by the next run's listing: the tags then describe the value")
    func lateRetagFailing() async throws {
        let user = UserID("two-step-retag")!
        try await revokedGrant(user)
        // A reconnect's value lands, then a writer that had read the revoked set tags it
        // revoked over the reconnect; the reconnect's check and retag then fail.
        let stale = try #require(try await vault(secrets).current(of: user))
        let racing = RacingSecretStore(secrets, name: user.secretName, afterFirstTag: { inner in
            try await SecretsManagerGrantStore(inner).mark(user.rawValue, attributes: TokenSetTags.tags(for: stale.tokenSet), expected: stale.version)
            await secrets.setFault { $0 == "DescribeSecret" || $0 == "TagResource" ? StoreError.unavailable : nil }
        })
        _ = try? await vault(racing).store(tokens("1//late-\(user)"), for: user)
        await secrets.setFault(nil)
        #expect(racing.raced)
        #expect(try await vault(secrets).current(of: user)?.tokenSet.status == .active)
        try await refreshRun(user)
        #expect(try await vault(secrets).connectionState(of: user) == .connected, "the stranded tags rewritten by the run")
    }

    @Test("a disconnect whose compare or restore fails after deleting a reconnect written meanwhile: the run restores it, with its event",
          arguments: ["DescribeSecret", "RestoreSecret"])
    func deleteLeftHalfDone(failing step: String) async throws {
        let user = UserID("two-step-delete-\(step)")!
        _ = try await vault(secrets).store(tokens("1//first-\(user)"), for: user)
        let types = bus.types
        // The disconnect's event is out and its grant about to be deleted when a reconnect
        // lands (its own event held by a bus down); the step after the deletion then fails.
        let racing = RacingSecretStore(secrets, name: user.secretName, beforeFirstDelete: { inner in
            bus.fail(true)
            _ = try await vault(inner).store(tokens("1//again-\(user)"), for: user)
            bus.fail(false)
            await secrets.setFault { $0 == step ? StoreError.unavailable.with(message: "\(step) failing") : nil }
        })
        _ = try? await vault(racing).disconnect(user, recoveryWindowDays: 7)
        await secrets.setFault(nil)
        #expect(racing.raced)

        try await refreshRun(user)
        #expect(try await grants.state(of: user.rawValue).isScheduledForDeletion == false, "the reconnect is not left deleted")
        #expect(try await vault(secrets).current(of: user)?.tokenSet.refreshToken == "1//again-\(user)")
        #expect(try await vault(secrets).connectionState(of: user) == .connected)
        #expect(Array(bus.types.dropFirst(types.count)) == ["Gmail Disconnected", "Gmail Connected"], "\(bus.types)")
    }

    @Test("a disconnect without a bus whose revoked value a late retag tagged active before the delete: the run deletes it again")
    func lateRetagOverADeletedMark() async throws {
        let user = UserID("two-step-late-mark")!
        let plain = TokenVault(grants: grants)
        _ = try await plain.store(tokens("1//mark-\(user)"), for: user)
        let live = try #require(try await plain.current(of: user))
        // An overtaken writer's tags (active, stamped for its own version) land after the mark's.
        let racing = RacingSecretStore(secrets, name: user.secretName, beforeFirstDelete: { inner in
            try await SecretsManagerGrantStore(inner).mark(user.rawValue, attributes: TokenSetTags.tags(for: live.tokenSet), expected: live.version)
        })
        _ = try await TokenVault(grants: SecretsManagerGrantStore(racing)).disconnect(user, recoveryWindowDays: 7)
        #expect(racing.raced)
        try await refreshRun(user)
        let deleted = try await grants.state(of: user.rawValue)
        #expect(deleted.isScheduledForDeletion, "the disconnect stands, restored and deleted again")
        // Deleted again with its own tags: the next run leaves it deleted, its recovery
        // window running, rather than restoring and deleting it at every run.
        #expect(deleted.attributes[TokenSetTags.status] == GmailTokenSet.Status.revoked.rawValue, "\(deleted.attributes)")
        let deletions = await secrets.calls.filter { $0 == "DeleteSecret" }.count
        try await refreshRun(user)
        #expect(await secrets.calls.filter { $0 == "DeleteSecret" }.count == deletions, "the next run deletes nothing again")
        #expect(try await grants.state(of: user.rawValue).isScheduledForDeletion)
    }

    @Test("a disconnect whose compare fails after deleting its own value stays deleted: the run restores nothing")
    func deleteOfItsOwnValueStands() async throws {
        let user = UserID("two-step-own-delete")!
        _ = try await vault(secrets).store(tokens("1//own-\(user)"), for: user)
        let racing = RacingSecretStore(secrets, name: user.secretName, beforeFirstDelete: { _ in
            await secrets.setFault { $0 == "DescribeSecret" ? StoreError.unavailable : nil }
        })
        _ = try? await vault(racing).disconnect(user, recoveryWindowDays: 7)
        await secrets.setFault(nil)
        try await refreshRun(user)
        #expect(try await grants.state(of: user.rawValue).isScheduledForDeletion, "the disconnect stands")
    }
}
