import PayPulseCoding

// The Secrets Manager shapes of the warm paths, written and read by hand (see AWSJSONShape).

extension SecretsManager.Tag {
    var json: JSONValue { .object(["Key": .string(Key), "Value": .string(Value)]) }

    init(json value: JSONValue) throws(JSONTypeMismatch) {
        guard case .object(let fields) = value, let key = try fields.string("Key"), let tagValue = try fields.string("Value") else {
            throw JSONTypeMismatch(key: "Tags")
        }
        self.init(Key: key, Value: tagValue)
    }

    static func tags(_ fields: [String: JSONValue]) throws(JSONTypeMismatch) -> [Self]? {
        guard let items = try fields.array("Tags") else { return nil }
        var tags: [Self] = []
        tags.reserveCapacity(items.count)
        for item in items { tags.append(try Self(json: item)) }
        return tags
    }
}

extension SecretsManager.CreateSecretInput: AWSJSONInput {
    var json: JSONValue {
        .members(["Name": .string(Name), "SecretString": .string(SecretString), "ClientRequestToken": .string(ClientRequestToken),
                  "Tags": Tags.map { .array($0.map(\.json)) }])
    }
}

extension SecretsManager.GetSecretValueInput: AWSJSONInput {
    var json: JSONValue { .members(["SecretId": .string(SecretId), "VersionId": .stringIfPresent(VersionId), "VersionStage": .stringIfPresent(VersionStage)]) }
}

extension SecretsManager.SecretIdInput: AWSJSONInput {
    var json: JSONValue { .object(["SecretId": .string(SecretId)]) }
}

extension SecretsManager.PutSecretValueInput: AWSJSONInput {
    var json: JSONValue {
        .object(["SecretId": .string(SecretId), "SecretString": .string(SecretString), "ClientRequestToken": .string(ClientRequestToken),
                 "VersionStages": .strings(VersionStages)])
    }
}

extension SecretsManager.UpdateSecretVersionStageInput: AWSJSONInput {
    var json: JSONValue {
        .members(["SecretId": .string(SecretId), "VersionStage": .string(VersionStage), "MoveToVersionId": .stringIfPresent(MoveToVersionId),
                  "RemoveFromVersionId": .stringIfPresent(RemoveFromVersionId)])
    }
}

extension SecretsManager.TagResourceInput: AWSJSONInput {
    var json: JSONValue { .object(["SecretId": .string(SecretId), "Tags": .array(Tags.map(\.json))]) }
}

extension SecretsManager.VersionOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        self.init(Name: try fields.string("Name"), VersionId: try fields.string("VersionId"))
    }
}

extension SecretsManager.GetSecretValueOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        guard let versionID = try fields.string("VersionId") else { throw JSONTypeMismatch(key: "VersionId") }
        self.init(
            Name: try fields.string("Name"), VersionId: versionID, SecretString: try fields.string("SecretString"),
            VersionStages: try fields.strings("VersionStages"), CreatedDate: try fields.double("CreatedDate")
        )
    }
}

extension SecretsManager.DescribeSecretOutput: AWSJSONOutput {
    init(json fields: [String: JSONValue]) throws(JSONTypeMismatch) {
        guard let name = try fields.string("Name") else { throw JSONTypeMismatch(key: "Name") }
        var stages: [String: [String]]?
        if let map = try fields.object("VersionIdsToStages") {
            var read: [String: [String]] = [:]
            for key in map.keys {
                guard let labels = try map.strings(key) else { throw JSONTypeMismatch(key: "VersionIdsToStages") }
                read[key] = labels
            }
            stages = read
        }
        self.init(Name: name, Tags: try SecretsManager.Tag.tags(fields), DeletedDate: try fields.double("DeletedDate"), VersionIdsToStages: stages)
    }
}

extension SecretsManager.Empty: AWSJSONOutput {
    init(json fields: [String: JSONValue]) {}
}
