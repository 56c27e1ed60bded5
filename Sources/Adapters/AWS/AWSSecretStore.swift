#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts
import PayPulseTransport

/// ``SecretStore`` on AWS Secrets Manager (or any service that speaks its API).
public struct AWSSecretStore: SecretStore {
    private let client: SecretsManagerClient

    /// Creates a store over a Secrets Manager client.
    public init(client: SecretsManagerClient) { self.client = client }

    /// The Secrets Manager operations each port operation calls.
    public static func operations(for operation: SecretOperation) -> [AWSOperation] {
        typealias Client = SecretsManagerClient
        return switch operation {
        case .createSecret: [Client.createSecretOperation]
        case .getSecretValue: [Client.getSecretValueOperation]
        case .describeSecret: [Client.describeSecretOperation]
        case .putSecretValue: [Client.putSecretValueOperation]
        case .updateSecretVersionStage: [Client.updateSecretVersionStageOperation]
        // The move's answer lost and the retry refused: the stages tell whether it landed.
        case .replaceCurrent: [Client.putSecretValueOperation, Client.updateSecretVersionStageOperation, Client.describeSecretOperation]
        case .listSecrets: [Client.listSecretsOperation]
        case .deleteSecret: [Client.deleteSecretOperation]
        case .restoreSecret: [Client.restoreSecretOperation]
        case .tagResource: [Client.tagResourceOperation]
        case .untagResource: [Client.untagResourceOperation]
        }
    }

    public func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        try await mapped { try await client.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken) }
    }

    public func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        try await mapped { try await client.getSecretValue(name: name, stage: stage) }
    }

    public func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await mapped { try await client.getSecretValue(name: name, versionID: versionID) }
    }

    public func describeSecret(name: String) async throws -> SecretDescription {
        try await mapped { try await client.describeSecret(name: name) }
    }

    public func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        try await mapped { try await client.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages) }
    }

    public func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        try await mapped(compareAndSwap: removeFrom != nil) {
            try await client.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
        }
    }

    /// Two calls: the new version goes in as `AWSPENDING` (readers still see the old one),
    /// then `AWSCURRENT` moves only if `expected` still holds it. When the move's answer is
    /// lost and the retry is refused, the stages tell whether our move had landed.
    public func replaceCurrent(name: String, expected: SecretVersionID, value: String, clientRequestToken: String) async throws -> SecretVersionID {
        let version = try await putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: [.pending])
        do {
            try await updateSecretVersionStage(name: name, stage: .current, moveTo: version, removeFrom: expected)
        } catch let error as StoreError where error == .conflict {
            let description = try await describeSecret(name: name)
            guard description.currentVersion == version else { throw error }
        }
        return version
    }

    public func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        try await mapped {
            try await client.listSecrets(
                namePrefix: namePrefix, tagValue: tagValue, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken
            )
        }
    }

    public func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        let date = try await mapped { try await client.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays) }
        return date ?? Date().addingTimeInterval(Double(recoveryWindowDays) * 86_400)
    }

    public func restoreSecret(name: String) async throws {
        try await mapped { try await client.restoreSecret(name: name) }
    }

    public func tagResource(name: String, tags: [String: String]) async throws {
        try await mapped { try await client.tagResource(name: name, tags: tags) }
    }

    public func untagResource(name: String, tagKeys: [String]) async throws {
        try await mapped { try await client.untagResource(name: name, tagKeys: tagKeys) }
    }

    private func mapped<T>(compareAndSwap: Bool = false, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw StoreError(mapping: error, compareAndSwap: compareAndSwap)
        }
    }
}

extension StoreError {
    /// Maps an AWS answer or transport failure onto the port's codes. Keyed on the error
    /// type, never on the status: emulators send other statuses than AWS.
    init(mapping error: any Error, compareAndSwap: Bool = false) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as AWSError:
            self = Self.code(for: error, compareAndSwap: compareAndSwap).with(message: error.description)
        case let error as TransportError:
            self = StoreError.unavailable.with(message: "transport: \(error)")
        case let error as AWSClientError:
            self = StoreError.corrupt.with(message: error.description)
        default:
            self = StoreError.corrupt.with(message: "\(type(of: error))")
        }
    }

    private static func code(for error: AWSError, compareAndSwap: Bool) -> StoreError {
        switch error.type {
        case "ResourceNotFoundException":
            return .notFound
        case "ResourceExistsException":
            return .alreadyExists
        case "InvalidRequestException" where error.message.lowercased().contains("delet"):
            return .scheduledForDeletion
        case "InvalidParameterException" where compareAndSwap:
            // Secrets Manager's answer when RemoveFromVersionId no longer holds the stage.
            return .conflict
        case "AccessDeniedException", "AccessDenied", "UnrecognizedClientException", "InvalidClientTokenId",
             "SignatureDoesNotMatch", "IncompleteSignature", "MissingAuthenticationToken", "ExpiredTokenException":
            return .accessDenied
        case "InvalidRequestException", "InvalidParameterException", "ValidationException", "LimitExceededException",
             "MalformedPolicyDocumentException", "PreconditionNotMetException", "InvalidNextTokenException":
            return .invalidRequest
        default:
            return error.isRetryable ? .unavailable : .invalidRequest
        }
    }
}
