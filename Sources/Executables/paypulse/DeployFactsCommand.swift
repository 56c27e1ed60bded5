import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseApp
import PayPulseAWS
import PayPulseCoding
import PayPulseDomain
import PayPulseHandlers

/// `paypulse deploy-facts`: what a deployment must agree with, printed from the code as one
/// JSON document, so `scripts/check_template.py` compares template.yaml with the code's own
/// values and never reads Swift text: each function's least-privilege statements per store
/// (as `paypulse iam` prints them), the store names, the variables the configuration reads,
/// the tokens table's default name, the refresh pace's meaning and the refresh metrics.
struct DeployFactsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy-facts", abstract: "Print what template.yaml must agree with (JSON), read from the code."
    )

    func run() throws {
        print(try Self.facts().prettyText)
    }

    /// The facts document.
    static func facts() throws -> JSONValue {
        let stores: [StoreBackend] = [.aws, .dynamodb]
        var iam: [String: JSONValue] = [:]
        for name in HandlerName.allCases {
            let reach = Assembly.reach(of: name)
            iam[name.rawValue] = .object(Dictionary(uniqueKeysWithValues: stores.map { store in
                (store.rawValue, JSONValue.array(reach.statements(store: store).map(IAMCommand.json)))
            }))
        }
        // The configuration as a function reads it in Lambda, on each store the template deploys.
        let lambda = { (store: StoreBackend) in
            [
                "AWS_LAMBDA_FUNCTION_NAME": "function", "PAYPULSE_STORE": store.rawValue, "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": "key", "AWS_SECRET_ACCESS_KEY": "secret", "PAYPULSE_KMS_KEY_ID": "alias/key",
            ]
        }
        let variables = stores.reduce(into: Set<String>()) { $0.formUnion(AppConfiguration.variablesRead(lambda($1))) }
        let refresh = try AppConfiguration.fromEnvironment(lambda(.aws)).refresh
        let accepted = RefreshSettings.acceptedWritesPerSecond
        return .object([
            "functions": .array(HandlerName.allCases.map { .string($0.rawValue) }),
            "iam": .object(iam),
            "stores": .array(StoreBackend.allCases.map { .string($0.rawValue) }),
            "environment": .array(variables.sorted().map(JSONValue.string)),
            "tokens_table_default": .string(TokenTableConfiguration.defaultTable),
            "refresh": .object([
                "window_seconds_default": .integer(Int64(refresh.windowSeconds)),
                "permits_per_write": .integer(Int64(TokenRefresher.permitsPerWrite)),
                "due_index_buckets": .integer(Int64(DynamoDBGrantStore.dueIndexBuckets)),
                "writes_per_second_accepted": .array([.integer(Int64(accepted.lowerBound)), .integer(Int64(accepted.upperBound))]),
            ]),
            "metrics": try metrics(),
        ])
    }

    /// The metric families the functions emit, each read back from its lines themselves:
    /// the refresh run's, the security events' (one line per event type), and the lifecycle
    /// events' publishing.
    static func metrics() throws -> JSONValue {
        let epoch = Date(timeIntervalSince1970: 0)
        let refresh = try family(RefreshSummary().embeddedMetricFormat(function: TokenRefreshHandler.defaultFunctionName, timestamp: epoch))
        let events = try SecurityEventsHandler.metricEventTypes.map { type in
            try family(SecurityEventsHandler.metricLine(
                function: SecurityEventsHandler.defaultFunctionName, eventType: type, counts: ["Events": 0, "GrantsChanged": 0, "GrantsStale": 0, "Invalid": 0],
                timestamp: epoch
            ))
        }
        let lifecycle = try family(LifecyclePublisher.metricLine(
            published: 0, failed: 0, refused: 0, pending: 0, oldestPendingSeconds: 0, dropped: 0, timestamp: epoch
        ))
        let quota = try family(StoreTokensHandler.quotaFailureLine(timestamp: epoch))
        return .array([refresh] + events + [lifecycle, quota])
    }

    /// The namespace, dimensions (with their values) and metric names of one EMF line.
    private static func family(_ line: String) throws -> JSONValue {
        let document = try JSONValue.decode(Array(line.utf8))
        guard let directive = document["_aws"]?["CloudWatchMetrics"]?.arrayValue?.first,
              let namespace = directive["Namespace"]?.stringValue,
              let dimensions = directive["Dimensions"]?.arrayValue?.first?.arrayValue?.compactMap(\.stringValue),
              let names = directive["Metrics"]?.arrayValue?.compactMap({ $0["Name"]?.stringValue })
        else { throw ValidationError("a metrics line is not an EMF document") }
        return .object([
            "namespace": .string(namespace),
            "dimensions": .object(Dictionary(uniqueKeysWithValues: dimensions.map { ($0, document[$0] ?? .null) })),
            "names": .array(names.map(JSONValue.string)),
        ])
    }
}
