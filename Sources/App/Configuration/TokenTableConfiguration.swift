/// Where token sets live with `PAYPULSE_STORE=dynamodb`: the table and the KMS key their
/// data keys come from.
public struct TokenTableConfiguration: Sendable, Equatable {
    /// The tokens table (`TOKENS_TABLE`).
    public let table: String
    /// The KMS key id, ARN or alias data keys are generated under (`PAYPULSE_KMS_KEY_ID`).
    public let kmsKeyID: String

    /// The default tokens table name.
    public static let defaultTable = "paypulse-gmail-tokens"

    init(_ reader: EnvironmentReader) throws(ConfigurationError) {
        table = try reader.tableName("TOKENS_TABLE", default: Self.defaultTable)
        guard let keyID = reader.value("PAYPULSE_KMS_KEY_ID") else {
            throw ConfigurationError(variable: "PAYPULSE_KMS_KEY_ID", problem: "required when PAYPULSE_STORE=dynamodb: the KMS key that wraps the token sets' data keys")
        }
        guard keyID.count <= 2048, keyID.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ConfigurationError(variable: "PAYPULSE_KMS_KEY_ID", problem: "not a KMS key id, ARN or alias")
        }
        kmsKeyID = keyID
    }
}
