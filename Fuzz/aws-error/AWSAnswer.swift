import Foundation
import Logging
import PayPulseAWS
import PayPulsePorts
import PayPulseTransport

/// One fuzz input read as the answer to one Secrets Manager operation:
///
///     UpdateSecretVersionStage 400
///     X-Amzn-ErrorType: InvalidParameterException
///
///     {"__type":"InvalidParameterException","message":"..."}
///
/// Parsing is lenient so that every input reaches the decoder: a missing status is 400,
/// an unknown operation is DescribeSecret, a line without a colon is skipped.
struct AWSAnswer: Sendable {
    var operation: String
    var response: HTTPResponse

    init(_ bytes: [UInt8]) {
        let separator = Array("\n\n".utf8)
        let split = bytes.firstRange(of: separator)
        let head = String(decoding: split.map { bytes[..<$0.lowerBound] } ?? bytes[...], as: UTF8.self)
        let body = split.map { Array(bytes[$0.upperBound...]) } ?? []
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false)
        let statusLine = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ")
        operation = statusLine.first.map(String.init) ?? ""
        let status = statusLine.dropFirst().first.flatMap { Int($0) } ?? 400
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        response = HTTPResponse(status: min(max(status, 100), 599), headers: headers, body: body)
    }

    /// Calls the operation on an AWSSecretStore whose transport answers `response`, once
    /// (no retries, so no sleeping); returns what it threw, if anything.
    func callThroughStore() async -> (any Error)? {
        do {
            let store = try AWSSecretStore(client: SecretsManagerClient(client: AWSJSONClient(
                settings: .init(
                    service: .secretsManager, region: "us-east-1", endpoint: "http://127.0.0.1:1",
                    credentials: AWSCredentials(accessKeyID: "AKIAFUZZ", secretAccessKey: "fuzz-secret")
                ),
                transport: FixedTransport(response: response), retryPolicy: .none,
                logger: Logger(label: "fuzz") { _ in SwiftLogNoOpLogHandler() },
                now: { Date(timeIntervalSince1970: 1_767_225_600) }
            )))
            try await call(store)
            return nil
        } catch {
            return error
        }
    }

    private func call(_ store: AWSSecretStore) async throws {
        let name = "gmail/user/fuzz"
        switch operation {
        case "CreateSecret": _ = try await store.createSecret(name: name, value: "{}", tags: ["a": "b"], clientRequestToken: "t")
        case "GetSecretValue": _ = try await store.getSecretValue(name: name, stage: .current)
        case "PutSecretValue": _ = try await store.putSecretValue(name: name, value: "{}", clientRequestToken: "t", stages: [.pending])
        case "UpdateSecretVersionStage":
            try await store.updateSecretVersionStage(name: name, stage: .current, moveTo: SecretVersionID("new"), removeFrom: SecretVersionID("old"))
        case "ListSecrets": _ = try await store.listSecrets(namePrefix: "gmail/user/", includePlannedDeletion: false, maxResults: 10, nextToken: nil)
        case "DeleteSecret": _ = try await store.deleteSecret(name: name, recoveryWindowDays: 7)
        case "RestoreSecret": try await store.restoreSecret(name: name)
        case "TagResource": try await store.tagResource(name: name, tags: ["a": "b"])
        default: _ = try await store.describeSecret(name: name)
        }
    }
}

/// A transport that answers every request with the same response.
struct FixedTransport: HTTPTransport {
    let response: HTTPResponse

    func execute(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}
