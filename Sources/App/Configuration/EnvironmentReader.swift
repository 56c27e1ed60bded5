#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads variables out of one environment snapshot, with the checks every setting shares:
/// a blank value counts as unset, a URL must be http(s), a number must be in its range.
/// Errors name the variable and never echo a secret's value.
struct EnvironmentReader {
    let variables: [String: String]
    /// Where the names asked for are written, when a reading records them.
    var asked: AskedNames? = nil

    /// The value of `name`, or `nil` when unset or blank. Every other read goes through it.
    func value(_ name: String) -> String? {
        asked?.names.insert(name)
        guard let raw = variables[name], !raw.allSatisfy(\.isWhitespace) else { return nil }
        return raw
    }

    /// An `http://` or `https://` URL, or `nil` when unset.
    func url(_ name: String) throws(ConfigurationError) -> String? {
        guard let url = value(name) else { return nil }
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > "https://".count else {
            throw ConfigurationError(variable: name, problem: "expected an http(s):// URL, got '\(url)'")
        }
        return url
    }

    /// A whole number in `range`, or `fallback` when unset.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let raw = value(name) else { return fallback }
        guard let number = Int(raw), range.contains(number) else {
            throw ConfigurationError(variable: name, problem: "expected a whole number in \(range.lowerBound)...\(range.upperBound), got '\(raw)'")
        }
        return number
    }

    /// A DynamoDB table name (3-255 letters, digits, `_`, `-`, `.`), or `fallback` when unset.
    func tableName(_ name: String, default fallback: String) throws(ConfigurationError) -> String {
        let table = value(name) ?? fallback
        guard table.count <= 255, table.count >= 3,
              table.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }) else {
            throw ConfigurationError(
                variable: name, problem: "a DynamoDB table name is 3-255 characters of letters, digits, '_', '-' and '.', got '\(table)'"
            )
        }
        return table
    }

    /// The path of a readable file, or `nil` when unset.
    func readableFile(_ name: String) throws(ConfigurationError) -> String? {
        guard let path = value(name) else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigurationError(variable: name, problem: "no readable file at '\(path)'")
        }
        return path
    }
}

/// The variable names one reading asked for, set or not.
final class AskedNames {
    var names: Set<String> = []
}

/// A bad configuration value, naming the variable so the operator knows what to fix.
///
/// The message never contains a key: it says what is wrong (missing, too short, the
/// development key) without echoing the value.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable (or setting) at fault, e.g. `PAYPULSE_JWT_SECRET`.
    package let variable: String
    /// What is wrong with it.
    package let problem: String

    /// Creates an error.
    /// - Parameters:
    ///   - variable: The environment variable at fault.
    ///   - problem: What is wrong with it; never the secret itself.
    package init(variable: String, problem: String) {
        self.variable = variable
        self.problem = problem
    }

    /// `configuration error: VAR: problem`, the shape every configuration error has.
    package var description: String { "configuration error: \(variable): \(problem)" }
}
