#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Typed KMS operations over ``AWSJSONClient``: the three envelope encryption needs, and
/// `CreateKey` for local set-up. Errors are the raw ``AWSError``s.
package struct KMSClient: DataKeyService {
    private let client: AWSJSONClient

    /// Creates a client speaking to KMS through `client` (made with ``AWSService/kms``).
    package init(client: AWSJSONClient) { self.client = client }

    /// `CreateKey`: IAM `kms:CreateKey` on `*` (the key does not exist yet).
    package static let createKeyOperation = AWSOperation(.kms, "CreateKey", on: .any)
    /// `GenerateDataKey`: IAM `kms:GenerateDataKey` on the key.
    package static let generateDataKeyOperation = AWSOperation(.kms, "GenerateDataKey", on: .key)
    /// `Decrypt`: IAM `kms:Decrypt` on the key.
    package static let decryptOperation = AWSOperation(.kms, "Decrypt", on: .key)

    /// `CreateKey`: a symmetric encryption key (`SYMMETRIC_DEFAULT`), for local set-up and tests.
    /// - Returns: the new key's id.
    package func createKey(description: String? = nil) async throws -> String {
        let input = KMS.CreateKeyInput(Description: description, KeyUsage: "ENCRYPT_DECRYPT", KeySpec: "SYMMETRIC_DEFAULT")
        let output: KMS.CreateKeyOutput = try await client.call(Self.createKeyOperation, input)
        return output.KeyId
    }

    /// `GenerateDataKey` with `KeySpec` `AES_256`.
    /// - Parameters:
    ///   - keyID: the KMS key's id, ARN or alias.
    ///   - context: the encryption context; `Decrypt` needs the same one.
    /// - Throws: ``AWSError``; ``AWSClientError/unreadableResponse(operation:status:)`` when a
    ///   blob is not base64 or the key is not 32 bytes.
    package func generateDataKey(keyID: String, context: [String: String]) async throws -> GeneratedDataKey {
        let input = KMS.GenerateDataKeyInput(KeyId: keyID, KeySpec: "AES_256", EncryptionContext: context)
        let output: KMS.GenerateDataKeyOutput = try await client.call(Self.generateDataKeyOperation, input)
        guard let plaintext = Data(base64Encoded: output.Plaintext), plaintext.count == 32,
              let wrapped = Data(base64Encoded: output.CiphertextBlob) else {
            throw AWSClientError.unreadableResponse(operation: "GenerateDataKey", status: 200)
        }
        return GeneratedDataKey(plaintext: DataKey(plaintext), wrapped: [UInt8](wrapped), keyID: output.KeyId)
    }

    /// `Decrypt` of a wrapped data key.
    /// - Parameters:
    ///   - ciphertextBlob: the wrapped key, as `GenerateDataKey` returned it.
    ///   - context: the encryption context it was wrapped with.
    ///   - keyID: when given, KMS refuses a blob wrapped under another key.
    /// - Throws: ``AWSError`` (`InvalidCiphertextException` for another context or an altered
    ///   blob); ``AWSClientError/unreadableResponse(operation:status:)`` for an unreadable answer.
    package func decrypt(ciphertextBlob: [UInt8], context: [String: String], keyID: String? = nil) async throws -> DataKey {
        let input = KMS.DecryptInput(CiphertextBlob: Data(ciphertextBlob).base64EncodedString(), EncryptionContext: context, KeyId: keyID)
        let output: KMS.DecryptOutput = try await client.call(Self.decryptOperation, input)
        guard let plaintext = Data(base64Encoded: output.Plaintext) else {
            throw AWSClientError.unreadableResponse(operation: "Decrypt", status: 200)
        }
        return DataKey(plaintext)
    }
}
