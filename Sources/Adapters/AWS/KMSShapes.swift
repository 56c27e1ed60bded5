import PayPulseCoding

/// Request and response shapes of the KMS operations we call, each with its one encoding
/// (see ``AWSJSONInput``). Binary members (`Plaintext`, `CiphertextBlob`) travel as base64
/// text; ``KMSClient`` converts them to bytes.
enum KMS {
    struct CreateKeyInput: AWSJSONInput {
        var Description: String?
        var KeyUsage: String
        var KeySpec: String

        var json: JSONValue {
            .members(["Description": .stringIfPresent(Description), "KeyUsage": .string(KeyUsage), "KeySpec": .string(KeySpec)])
        }
    }

    /// The answer of `CreateKey`: the new key's id from its `KeyMetadata`.
    struct CreateKeyOutput: AWSJSONOutput {
        var KeyId: String
        var Arn: String?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let metadata = try fields.object("KeyMetadata"), let keyID = try metadata.string("KeyId") else {
                throw JSONTypeMismatch(key: "KeyMetadata")
            }
            KeyId = keyID
            Arn = try metadata.string("Arn")
        }
    }

    struct GenerateDataKeyInput: AWSJSONInput {
        var KeyId: String
        var KeySpec: String
        var EncryptionContext: [String: String]

        var json: JSONValue {
            .object(["KeyId": .string(KeyId), "KeySpec": .string(KeySpec), "EncryptionContext": .object(EncryptionContext.mapValues(JSONValue.string))])
        }
    }

    struct GenerateDataKeyOutput: AWSJSONOutput {
        var CiphertextBlob: String
        var Plaintext: String
        var KeyId: String

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let blob = try fields.string("CiphertextBlob") else { throw JSONTypeMismatch(key: "CiphertextBlob") }
            guard let plaintext = try fields.string("Plaintext") else { throw JSONTypeMismatch(key: "Plaintext") }
            guard let keyID = try fields.string("KeyId") else { throw JSONTypeMismatch(key: "KeyId") }
            CiphertextBlob = blob
            Plaintext = plaintext
            KeyId = keyID
        }
    }

    struct DecryptInput: AWSJSONInput {
        var CiphertextBlob: String
        var EncryptionContext: [String: String]
        var KeyId: String?

        var json: JSONValue {
            .members(["CiphertextBlob": .string(CiphertextBlob), "EncryptionContext": .object(EncryptionContext.mapValues(JSONValue.string)),
                      "KeyId": .stringIfPresent(KeyId)])
        }
    }

    struct DecryptOutput: AWSJSONOutput {
        var Plaintext: String
        var KeyId: String?

        init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
            guard let plaintext = try fields.string("Plaintext") else { throw JSONTypeMismatch(key: "Plaintext") }
            Plaintext = plaintext
            KeyId = try fields.string("KeyId")
        }
    }
}
