/// One HTTP header field, as it is (or will be) sent.
///
/// Headers are kept as an ordered list rather than a dictionary: SigV4 joins repeated
/// names in order of appearance, so both order and duplicates matter.
public struct SigV4Header: Sendable, Hashable {
    /// The field name, in the case it is sent (signing lowercases it).
    public var name: String
    /// The raw field value (signing trims it and collapses whitespace runs).
    public var value: String

    /// Creates a header field.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The raw field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
