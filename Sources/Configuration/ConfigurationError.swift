/// A bad configuration value, naming the variable so the operator knows what to fix.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable at fault.
    public let variable: String
    /// What is wrong with it.
    public let problem: String

    /// Creates an error.
    public init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    public var description: String { "configuration error: \(variable): \(problem)" }
}
