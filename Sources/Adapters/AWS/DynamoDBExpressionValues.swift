/// The placeholders a request's expressions use: `#name` for attribute names (needed for
/// reserved words such as `status`) and `:value` for values. One set serves every
/// expression of a request, as in DynamoDB.
package struct DynamoDBExpressionValues: Sendable, Equatable {
    /// `#placeholder` → attribute name.
    package var names: [String: String]
    /// `:placeholder` → value.
    package var values: DynamoDBItem

    /// Creates placeholders.
    package init(names: [String: String] = [:], values: DynamoDBItem = [:]) {
        self.names = names
        self.values = values
    }

    /// No placeholders.
    package static let none = DynamoDBExpressionValues()

    var wireNames: [String: String]? { names.isEmpty ? nil : names }
    var wireValues: DynamoDB.Item? { values.isEmpty ? nil : DynamoDB.item(values) }
}
