#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts

/// The scheduled token-refresh function: one ``RefreshJob`` run over the shard the event
/// names, answered with the summary JSON and emitted as an EMF metrics line.
public struct TokenRefreshHandler: Sendable {
    /// A bad shard spec or an unusable client ID: the invocation must fail.
    public struct InvalidInput: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    let makeJob: @Sendable () async throws -> RefreshJob
    let metrics: any MetricsSink
    let functionName: String

    /// Creates the handler. `makeJob` runs once per invocation: it reads the client ID then
    /// (once per run, as the settings say) and builds the job.
    public init(functionName: String = "token-refresh", metrics: any MetricsSink, makeJob: @escaping @Sendable () async throws -> RefreshJob) {
        self.functionName = functionName
        self.metrics = metrics
        self.makeJob = makeJob
    }

    /// Runs one refresh, stopping in time for the invocation's deadline.
    /// - Parameters:
    ///   - detail: the event's `detail` (or constant input) as JSON: `{}` or `{"shard": i, "shards": n}`.
    ///   - context: the invocation: its deadline (if known) and logger.
    /// - Returns: the summary as JSON.
    /// - Throws: ``InvalidInput`` or a configuration failure: only then does the invocation fail.
    public func handle(detail: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        let shard = try Self.shard(from: detail)
        let job = try await makeJob()
        let deadline = context.deadline
        var logger = context.logger
        logger[metadataKey: "shard"] = "\(shard.index)/\(shard.count)"
        let summary = try await job.run(shard: shard, deadline: deadline, logger: logger)
        metrics.emit(summary.embeddedMetricFormat(function: functionName, timestamp: Date()))
        logger.info("refresh run finished", metadata: [
            "scanned": "\(summary.scanned)", "due": "\(summary.due)", "refreshed": "\(summary.refreshed)",
            "conflicts": "\(summary.conflicts)", "revoked": "\(summary.revoked)", "rejected": "\(summary.rejected)",
            "transient_failures": "\(summary.transient_failures)",
            "skipped": "\(summary.skipped)", "remaining": "\(summary.remaining)", "duration_ms": "\(summary.duration_ms)",
        ])
        return try JSONCoding.encode(summary)
    }

    /// `{}` (everyone) or `{"shard": i, "shards": n}` with `0 <= i < n`.
    static func shard(from detail: [UInt8]) throws -> Shard {
        struct Spec: Decodable {
            var shard: Int?
            var shards: Int?
        }
        guard let spec = try? JSONDecoder().decode(Spec.self, from: Data(detail.isEmpty ? Array("{}".utf8) : detail)) else {
            throw InvalidInput(description: "the event detail must be {} or {\"shard\": i, \"shards\": n} with integers")
        }
        switch (spec.shard, spec.shards) {
        case (nil, nil):
            return .all
        case (let index?, let count?):
            guard let shard = Shard(index: index, count: count) else {
                throw InvalidInput(description: "shard \(index) of \(count) is not a shard: need 0 <= shard < shards <= 10000")
            }
            return shard
        default:
            throw InvalidInput(description: "give both \"shard\" and \"shards\", or neither")
        }
    }
}
