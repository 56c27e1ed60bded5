#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import PayPulsePorts
import PayPulseTransport

/// ``SecretStore`` on AWS Secrets Manager (or any service that speaks its API).
package struct AWSSecretStore: SecretStore {
    private let client: SecretsManagerClient

    /// Creates a store over a Secrets Manager client.
    package init(client: SecretsManagerClient) { self.client = client }

    /// The Secrets Manager operations each port operation calls.
    package static func operations(for operation: SecretOperation) -> [AWSOperation] {
        typealias Client = SecretsManagerClient
        return switch operation {
        case .createSecret: [Client.createSecretOperation]
        case .getSecretValue: [Client.getSecretValueOperation]
        case .describeSecret: [Client.describeSecretOperation]
        case .putSecretValue: [Client.putSecretValueOperation]
        case .updateSecretVersionStage: [Client.updateSecretVersionStageOperation]
        case .replaceCurrent: [Client.putSecretValueOperation]
        case .listSecrets: [Client.listSecretsOperation]
        case .deleteSecret: [Client.deleteSecretOperation]
        case .restoreSecret: [Client.restoreSecretOperation]
        case .tagResource: [Client.tagResourceOperation]
        case .untagResource: [Client.untagResourceOperation]
        }
    }

    package func createSecret(name: String, value: String, tags: [String: String], clientRequestToken: String) async throws -> SecretVersionID {
        try await mapped { try await client.createSecret(name: name, value: value, tags: tags, clientRequestToken: clientRequestToken) }
    }

    package func getSecretValue(name: String, stage: SecretStage) async throws -> SecretValue {
        try await mapped { try await client.getSecretValue(name: name, stage: stage) }
    }

    package func getSecretValue(name: String, versionID: SecretVersionID) async throws -> SecretValue {
        try await mapped { try await client.getSecretValue(name: name, versionID: versionID) }
    }

    package func describeSecret(name: String) async throws -> SecretDescription {
        try await mapped { try await client.describeSecret(name: name) }
    }

    package func putSecretValue(name: String, value: String, clientRequestToken: String, stages: [SecretStage]) async throws -> SecretVersionID {
        try await mapped { try await client.putSecretValue(name: name, value: value, clientRequestToken: clientRequestToken, stages: stages) }
    }

    package func updateSecretVersionStage(name: String, stage: SecretStage, moveTo: SecretVersionID?, removeFrom: SecretVersionID?) async throws {
        try await mapped(compareAndSwap: removeFrom != nil) {
            try await client.updateSecretVersionStage(name: name, stage: stage, moveTo: moveTo, removeFrom: removeFrom)
        }
    }

    /// One call: `PutSecretValue` as `AWSCURRENT`, its `ClientRequestToken` the
    /// ``successor(of:)`` of `expected`. A version cannot change once made, so only one
    /// value is ever stored as that version: the first writer from `expected` creates it,
    /// any other is refused (`ResourceExistsException`: the conflict), and a retry of the
    /// same request is a no-op that answers the same version. Versions less than 24 hours
    /// old are never removed (Secrets Manager's rule), far beyond a function's 15 minutes,
    /// so a successor cannot be made twice.
    ///
    /// This needs every move of `AWSCURRENT` to go through here (as every grant and client-ID
    /// write does): a version made from `expected` is then the only way it stops being current.
    package func replaceCurrent(name: String, expected: SecretVersionID, value: String) async throws -> SecretVersionID {
        do {
            return try await putSecretValue(name: name, value: value, clientRequestToken: Self.successor(of: expected).rawValue, stages: [.current])
        } catch let error as StoreError where error == .alreadyExists {
            throw StoreError.conflict.with(message: "a version was already made from \(expected) of \(name)")
        }
    }

    /// The one version a swap from `version` may create: a name-based UUID (SHA-256 of
    /// the id, version 8 per RFC 9562) in lowercase, 36 characters as Secrets Manager's own.
    static func successor(of version: SecretVersionID) -> SecretVersionID {
        var bytes = Array(SHA256.hash(data: Array("paypulse successor of \(version.rawValue)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        return SecretVersionID(uuid: bytes)
    }

    package func listSecrets(namePrefix: String, tagValue: String?, includePlannedDeletion: Bool, maxResults: Int, nextToken: String?) async throws -> SecretPage {
        try await mapped {
            try await client.listSecrets(
                namePrefix: namePrefix, tagValue: tagValue, includePlannedDeletion: includePlannedDeletion, maxResults: maxResults, nextToken: nextToken
            )
        }
    }

    package func deleteSecret(name: String, recoveryWindowDays: Int) async throws -> Date {
        let date = try await mapped { try await client.deleteSecret(name: name, recoveryWindowDays: recoveryWindowDays) }
        return date ?? Date().addingTimeInterval(Double(recoveryWindowDays) * 86_400)
    }

    package func restoreSecret(name: String) async throws {
        try await mapped { try await client.restoreSecret(name: name) }
    }

    package func tagResource(name: String, tags: [String: String]) async throws {
        try await mapped { try await client.tagResource(name: name, tags: tags) }
    }

    package func untagResource(name: String, tagKeys: [String]) async throws {
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

    /// `body`'s result, its error mapped as ``init(mapping:compareAndSwap:)`` maps it.
    static func mapping<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw StoreError(mapping: error)
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
