/// The placeholders a request's expressions use: `#name` for attribute names (needed for
/// reserved words such as `status`) and `:value` for values. One set serves every
/// expression of a request, as in DynamoDB.
public struct DynamoDBExpressionValues: Sendable, Equatable {
    /// `#placeholder` → attribute name.
    public var names: [String: String]
    /// `:placeholder` → value.
    public var values: DynamoDBItem

    /// Creates placeholders.
    public init(names: [String: String] = [:], values: DynamoDBItem = [:]) {
        self.names = names
        self.values = values
    }

    /// No placeholders.
    public static let none = DynamoDBExpressionValues()

    var wireNames: [String: String]? { names.isEmpty ? nil : names }
    var wireValues: DynamoDB.Item? { values.isEmpty ? nil : DynamoDB.item(values) }
}
