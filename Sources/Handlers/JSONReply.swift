import PayPulseCoding

/// A reply body that also gives its JSON as a value, member for member as its `Encodable`
/// conformance writes it, so ``APIResponse/json(status:_:headers:)`` can write the same
/// bytes without `JSONEncoder` (a tenth of a warm invocation's instructions).
protocol JSONReply: Encodable {
    /// The body as the `Encodable` conformance encodes it.
    var jsonValue: JSONValue { get }
}
