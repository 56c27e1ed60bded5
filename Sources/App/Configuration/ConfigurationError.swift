/// A bad configuration value, naming the variable so the operator knows what to fix.
///
/// The message never contains a key: it says what is wrong (missing, too short, the
/// development key) without echoing the value.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable (or setting) at fault, e.g. `PAYPULSE_JWT_SECRET`.
    public let variable: String
    /// What is wrong with it.
    public let problem: String

    /// Creates an error.
    /// - Parameters:
    ///   - variable: The environment variable at fault.
    ///   - problem: What is wrong with it; never the secret itself.
    public init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    /// `configuration error: VAR: problem`, the shape every configuration error has.
    public var description: String { "configuration error: \(variable): \(problem)" }
}
