import PayPulseCoding

// The KMS shapes written and read by hand (see AWSJSONShape): sealing and opening are warm paths.

extension KMS.CreateKeyInput: AWSJSONInput {
    var json: JSONValue {
        .members(["Description": .stringIfPresent(Description), "KeyUsage": .string(KeyUsage), "KeySpec": .string(KeySpec)])
    }
}

extension KMS.CreateKeyOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        guard let metadata = try fields.object("KeyMetadata"), let keyID = try metadata.string("KeyId") else {
            throw JSONTypeMismatch(key: "KeyMetadata")
        }
        self.init(KeyMetadata: .init(KeyId: keyID, Arn: try metadata.string("Arn")))
    }
}

extension KMS.GenerateDataKeyInput: AWSJSONInput {
    var json: JSONValue {
        .object(["KeyId": .string(KeyId), "KeySpec": .string(KeySpec), "EncryptionContext": .object(EncryptionContext.mapValues(JSONValue.string))])
    }
}

extension KMS.GenerateDataKeyOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        guard let blob = try fields.string("CiphertextBlob") else { throw JSONTypeMismatch(key: "CiphertextBlob") }
        guard let plaintext = try fields.string("Plaintext") else { throw JSONTypeMismatch(key: "Plaintext") }
        guard let keyID = try fields.string("KeyId") else { throw JSONTypeMismatch(key: "KeyId") }
        self.init(CiphertextBlob: blob, Plaintext: plaintext, KeyId: keyID)
    }
}

extension KMS.DecryptInput: AWSJSONInput {
    var json: JSONValue {
        .members(["CiphertextBlob": .string(CiphertextBlob), "EncryptionContext": .object(EncryptionContext.mapValues(JSONValue.string)),
                  "KeyId": .stringIfPresent(KeyId)])
    }
}

extension KMS.DecryptOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        guard let plaintext = try fields.string("Plaintext") else { throw JSONTypeMismatch(key: "Plaintext") }
        self.init(Plaintext: plaintext, KeyId: try fields.string("KeyId"))
    }
}
