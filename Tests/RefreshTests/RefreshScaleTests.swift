import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import Testing

@Suite("Refresh at scale")
struct RefreshScaleTests {
    @Test("1,000 due grants are all refreshed within the concurrency and write-rate bounds", arguments: [StoreFactory.embedded, StoreFactory.privateMoto])
    func thousandGrants(_ factory: StoreFactory) async throws {
        try await factory.withStores { stores in
            let fixture = try RefreshFixture(stores)
            defer { fixture.google.stop() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in stride(from: 0, to: 1000, by: 125) {
                    group.addTask { for index in batch..<(batch + 125) { try await fixture.seed(index, expiresIn: 30) } }
                }
                try await group.waitForAll()
            }
            fixture.google.latency = .milliseconds(2)
            let writesBefore = fixture.recorder.writeCount
            let settings = RefreshSettings(windowSeconds: 900, concurrency: 6, maxWritesPerSecond: 600, stopMarginSeconds: 1)
            let summary = try await fixture.job(settings).run(deadline: nil, logger: fixture.logs.logger)
            #expect(summary.due == 1000 && summary.refreshed == 1000 && summary.remaining == 0)
            #expect(fixture.google.maxConcurrentTokenCalls <= 6)
            #expect(fixture.google.maxConcurrentTokenCalls >= 2, "the run overlapped its Google calls")
            #expect(fixture.recorder.writeCount - writesBefore == 1000)
            // Every write waited for its permit (one per compare-and-swap), and permits are
            // reserved 1/600 s apart: any window of w seconds holds at most 600 w of them plus
            // the last reservation's. Checked on the limiter's own instants, which a writer
            // waking late on a loaded machine cannot move.
            #expect(fixture.permits.permitCount == 1000 * TokenRefresher.permitsPerWrite)
            let busiest = fixture.permits.maxPermits(in: .seconds(1))
            #expect(busiest <= 600 + TokenRefresher.permitsPerWrite, "busiest second: \(busiest) permits")
            #expect(fixture.permits.maxPermits(in: .seconds(3)) <= 3 * 600 + TokenRefresher.permitsPerWrite)
        }
    }
}
