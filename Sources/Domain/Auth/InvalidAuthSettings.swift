/// JWT settings that cannot be used: which setting, and why (never the key itself).
public struct InvalidAuthSettings: Error, Sendable, Equatable, CustomStringConvertible {
    /// The settings that can be wrong.
    public enum Setting: String, Sendable {
        case key, issuer, audience, leeway
    }

    /// The setting at fault.
    public let setting: Setting
    /// What is wrong with it.
    public let problem: String

    /// `invalid JWT settings: setting: problem`.
    public var description: String { "invalid JWT settings: \(setting.rawValue): \(problem)" }
}
