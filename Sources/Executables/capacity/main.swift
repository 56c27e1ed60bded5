import Foundation

// `make capacity`: counts the AWS calls each operation makes through the functions as
// deployed (moto behind a counting proxy, the fake Google), on the Secrets Manager token
// store and on the DynamoDB one (KMS envelope encryption), combines them with the
// published quotas and prices, prints the tables and writes docs/perf/capacity.{md,svg};
// it fails when an operation makes more calls than its budget (CallBudget).

/// Measures, models and writes the report; a failed measurement is one line and exit 1.
func run() async throws {
    let bench = try await CapacityBench()
    let measured = try await Measurements.take(bench, on: .secretsManager)
    let dynamoDBStore = try await MeasuredStore.dynamoDB(on: bench)
    guard let table = dynamoDBStore.table else { throw CapacityError("the DynamoDB store has no table") }
    let dynamoDBCalls = try await Measurements.take(bench, on: dynamoDBStore)
    // Grants written by the store with Google's tokens at lengths seen in practice (priced)
    // and at their documented maxima (reported): the fake Google's tokens are a few bytes.
    let refreshedUser = "\(dynamoDBStore.userPrefix)3"
    typealias Sizing = DynamoDBMeasurements.Sizing
    let dynamoDBMeasured = DynamoDBMeasurements(
        measured: dynamoDBCalls, table: table,
        grantItem: try await dynamoDBStore.grantItem(
            like: refreshedUser, accessTokenBytes: Sizing.typicalAccessTokenBytes, refreshTokenBytes: Sizing.typicalRefreshTokenBytes
        ),
        largestItem: try await dynamoDBStore.grantItem(
            like: refreshedUser, accessTokenBytes: Sizing.largestAccessTokenBytes, refreshTokenBytes: Sizing.largestRefreshTokenBytes
        )
    )
    bench.stop()
    let traffic = Traffic()
    let report = CapacityReport(
        measured: measured, model: CapacityModel(measured: measured, traffic: traffic),
        dynamoDB: DynamoDBCapacityModel(measured: dynamoDBMeasured, traffic: traffic)
    )
    print(report.markdown)
    let directory = CommandLine.arguments.dropFirst().first ?? "docs/perf"
    try report.markdown.write(toFile: "\(directory)/capacity.md", atomically: true, encoding: .utf8)
    try report.svg.write(toFile: "\(directory)/capacity.svg", atomically: true, encoding: .utf8)
    print("wrote \(directory)/capacity.md and \(directory)/capacity.svg")
    let overruns = CallBudget.overruns(secretsManager: measured, dynamoDB: dynamoDBCalls)
    guard overruns.isEmpty else { throw CapacityError("over the call budget:\n" + overruns.joined(separator: "\n")) }
    print("every operation within its call budget (\(CallBudget.all.count) checked)")
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("capacity: \(error)\n".utf8))
    exit(1)
}
