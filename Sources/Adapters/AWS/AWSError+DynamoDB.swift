extension AWSError {
    /// Whether a DynamoDB write was refused because its `ConditionExpression` did not hold:
    /// a compare-and-swap that lost, or a create of an item that exists.
    public var isConditionalCheckFailed: Bool { type == "ConditionalCheckFailedException" }
}
