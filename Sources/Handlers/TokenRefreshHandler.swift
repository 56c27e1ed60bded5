#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts
import PayPulseRuntime

/// The scheduled token-refresh function: one ``RefreshJob`` run over the shard the event
/// names, answered with the summary JSON and emitted as an EMF metrics line.
package struct TokenRefreshHandler: Sendable {
    /// A bad shard spec or an unusable client ID: the invocation must fail.
    package struct InvalidInput: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        package let description: String
    }

    let makeJob: @Sendable () async throws -> RefreshJob
    let metrics: any MetricsSink
    let functionName: String

    /// The `Function` dimension of the metrics, unless the creator names another.
    package static let defaultFunctionName = "token-refresh"

    /// Creates the handler. `makeJob` runs once per invocation: it reads the client ID then
    /// (once per run, as the settings say) and builds the job.
    package init(functionName: String = Self.defaultFunctionName, metrics: any MetricsSink, makeJob: @escaping @Sendable () async throws -> RefreshJob) {
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
    package func handle(detail: [UInt8], context: InvocationContext) async throws -> [UInt8] {
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

    /// `{}` (everyone) or `{"shard": i, "shards": n}` with `0 <= i < n`. Keys are compared
    /// exactly and any other member is refused: a schedule that misspells its shard
    /// (`"Shard"`) would otherwise be read as no shard and refresh every user.
    static func shard(from detail: [UInt8]) throws -> Shard {
        let shape = "the event detail must be {} or {\"shard\": i, \"shards\": n} with integers"
        guard let members = (try? JSONBodyParser.parse(detail.isEmpty ? Array("{}".utf8) : detail))?.objectValue else {
            throw InvalidInput(description: shape)
        }
        if let unknown = members.keys.sorted().first(where: { $0 != "shard" && $0 != "shards" }) {
            throw InvalidInput(description: "the event detail has an unknown member \"\(unknown.prefix(40))\"; \(shape)")
        }
        func integer(_ key: String) throws -> Int? {
            guard let value = members[key] else { return nil }
            guard case .integer(let number) = value, let exact = Int(exactly: number) else { throw InvalidInput(description: shape) }
            return exact
        }
        switch (try integer("shard"), try integer("shards")) {
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
