#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// DynamoDB's values as this project sends and reads them: attribute values, items, and the
// placeholders that carry values and names into a request's expressions.

/// One DynamoDB attribute value of the kinds this project stores.
package enum DynamoDBValue: Sendable, Hashable {
    /// `S`: a string.
    case string(String)
    /// `N`: a number, as DynamoDB's decimal text (so no precision is lost on the way).
    case number(String)
    /// `B`: bytes (base64 on the wire).
    case binary([UInt8])
    /// `BOOL`: a boolean.
    case bool(Bool)

    /// A number from an integer.
    package static func integer(_ value: some BinaryInteger) -> DynamoDBValue { .number(String(value)) }

    /// The string of an `S` value.
    package var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer of an `N` value that is a whole number in `Int64`'s range.
    package var integerValue: Int64? { if case .number(let text) = self { Int64(text) } else { nil } }
    /// The bytes of a `B` value.
    package var binaryValue: [UInt8]? { if case .binary(let value) = self { value } else { nil } }
    /// The boolean of a `BOOL` value.
    package var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
}

/// An item or a key: attribute names to values.
package typealias DynamoDBItem = [String: DynamoDBValue]

extension DynamoDBValue {
    var attribute: DynamoDB.AttributeValue {
        switch self {
        case .string(let value): DynamoDB.AttributeValue(S: value)
        case .number(let value): DynamoDB.AttributeValue(N: value)
        case .binary(let value): DynamoDB.AttributeValue(B: Data(value).base64EncodedString())
        case .bool(let value): DynamoDB.AttributeValue(BOOL: value)
        }
    }

    /// The value of a wire attribute; `nil` for a kind we do not read.
    init?(_ attribute: DynamoDB.AttributeValue) {
        if let value = attribute.S {
            self = .string(value)
        } else if let value = attribute.N {
            self = .number(value)
        } else if let value = attribute.B, let bytes = Data(base64Encoded: value) {
            self = .binary([UInt8](bytes))
        } else if let value = attribute.BOOL {
            self = .bool(value)
        } else {
            return nil
        }
    }
}

extension DynamoDB {
    static func item(_ item: DynamoDBItem) -> Item { item.mapValues(\.attribute) }
    static func item(_ item: Item) -> DynamoDBItem { item.compactMapValues(DynamoDBValue.init) }
}

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
