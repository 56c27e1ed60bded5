/// AWS credentials: an access key pair and, for temporary credentials, a session token.
///
/// The textual and reflected forms redact the secret key and the session token, so a
/// credentials value that ends up in a log line or a test failure message leaks nothing.
public struct AWSCredentials: Sendable, Equatable {
    /// The access key id (`AKIA…` or `ASIA…`). Not a secret: it is shown in descriptions.
    public var accessKeyID: String
    /// The secret access key that derives the signing key.
    public var secretAccessKey: String
    /// The session token of temporary credentials (STS, Lambda), if any.
    public var sessionToken: String?

    /// Creates credentials.
    /// - Parameters:
    ///   - accessKeyID: The access key id.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token of temporary credentials, or `nil`.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

extension AWSCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A description that names the access key id and redacts the secrets.
    public var description: String {
        let token = sessionToken == nil ? "" : ", sessionToken: <redacted>"
        return "AWSCredentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>\(token))"
    }

    /// The same redacted text as ``description``.
    public var debugDescription: String { description }

    /// A mirror with redacted children, so `dump(_:)` does not print the secrets either.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [
            ("accessKeyID", accessKeyID),
            ("secretAccessKey", "<redacted>"),
        ]
        if sessionToken != nil { children.append(("sessionToken", "<redacted>")) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
