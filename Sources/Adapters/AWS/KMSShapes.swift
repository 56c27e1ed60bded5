/// Request and response shapes of the KMS operations we call. Binary members (`Plaintext`,
/// `CiphertextBlob`) travel as base64 text; ``KMSClient`` converts them to bytes.
enum KMS {
    struct CreateKeyInput: Encodable {
        var Description: String?
        var KeyUsage: String
        var KeySpec: String
    }

    struct KeyMetadata: Decodable {
        var KeyId: String
        var Arn: String?
    }

    struct CreateKeyOutput: Decodable {
        var KeyMetadata: KeyMetadata
    }

    struct GenerateDataKeyInput: Encodable {
        var KeyId: String
        var KeySpec: String
        var EncryptionContext: [String: String]
    }

    struct GenerateDataKeyOutput: Decodable {
        var CiphertextBlob: String
        var Plaintext: String
        var KeyId: String
    }

    struct DecryptInput: Encodable {
        var CiphertextBlob: String
        var EncryptionContext: [String: String]
        var KeyId: String?
    }

    struct DecryptOutput: Decodable {
        var Plaintext: String
        var KeyId: String?
    }
}
