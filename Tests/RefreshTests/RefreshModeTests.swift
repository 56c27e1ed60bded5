import Foundation
import PayPulseDomain
import PayPulseTestSupport
import Testing

@Suite("Refresh modes: eager keeps access tokens fresh, keepalive only keeps grants alive")
struct RefreshModeTests {
    private static func settings(_ mode: RefreshMode, keepAlive: Int = 86_400) -> RefreshSettings {
        RefreshSettings(windowSeconds: 900, concurrency: 4, maxWritesPerSecond: 1000, stopMarginSeconds: 1, mode: mode, keepAliveSeconds: keepAlive)
    }

    @Test("keepalive refreshes the grant idle past the interval and leaves the recently verified one, whatever their expiry; eager takes the expiring one too", arguments: StoreFactory.allGrantStores)
    func keepAliveAndEager(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores, due: .refresh(Self.settings(.keepalive, keepAlive: 2)))
            defer { fixture.google.stop() }
            // Both access tokens expire within the window; only the first grant is idle.
            let idle = try await fixture.seed(0, expiresIn: 30)
            try await Task.sleep(for: .milliseconds(2_300))
            // The runs' clock stops before the recent grant is written, so at that clock it is
            // never idle however long the write takes on a loaded machine (stopping it after
            // the write let a slow write age the grant past the interval), while the idle one
            // is 2.3 s old at least. The stores' own dates stay real.
            let runStarted = Date()
            let clock: @Sendable () -> Date = { runStarted }
            let recent = try await fixture.seed(1, expiresIn: 30)
            let keepAlive = try await fixture.job(Self.settings(.keepalive, keepAlive: 2), now: clock).run(deadline: nil, logger: fixture.logs.logger)
            #expect(keepAlive.scanned == (fixture.listsOnlyDue ? 1 : 2))
            #expect(keepAlive.due == 1)
            #expect(keepAlive.refreshed == 1)
            #expect(fixture.google.refreshCount(for: idle) == 1)
            #expect(fixture.google.refreshCount(for: recent) == 0)
            #expect(try await fixture.current(0).verifiedAt.map { $0 >= runStarted.addingTimeInterval(-1) } == true)

            // A second keepalive run right after finds nothing idle: the refresh wrote a value.
            let again = try await fixture.job(Self.settings(.keepalive, keepAlive: 2), now: clock).run(deadline: nil, logger: fixture.logs.logger)
            #expect(again.due == 0 && again.refreshed == 0)

            let eager = try await fixture.job(Self.settings(.eager), now: clock).run(deadline: nil, logger: fixture.logs.logger)
            #expect(eager.refreshed == 1)
            #expect(fixture.google.refreshCount(for: recent) == 1)
        }
    }

    @Test("keepalive with a day's interval leaves freshly connected grants alone, even with expired access tokens", arguments: StoreFactory.allGrantStores)
    func freshGrantsAreLeftAlone(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores, due: .refresh(Self.settings(.keepalive)))
            defer { fixture.google.stop() }
            for index in 0..<3 { try await fixture.seed(index, expiresIn: 1) }
            let summary = try await fixture.job(Self.settings(.keepalive)).run(deadline: nil, logger: fixture.logs.logger)
            #expect(summary.scanned == (fixture.listsOnlyDue ? 0 : 3) && summary.due == 0 && summary.refreshed == 0)
            #expect(fixture.google.tokenCalls == 0)
        }
    }
}
