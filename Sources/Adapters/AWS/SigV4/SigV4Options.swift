/// Choices that differ between AWS services.
public struct SigV4Options: Sendable, Hashable {
    /// Remove `.`/`..` segments and repeated slashes from the path before encoding it.
    /// Every service does this except S3, which signs the path as sent.
    public var normalizePath: Bool
    /// Add and sign an `x-amz-content-sha256` header holding the body hash (S3 needs it).
    public var signBody: Bool
    /// Leave the session token out of the signature but still send it; a few services
    /// (IoT, some STS flows) expect the token to be added after signing.
    public var omitSessionToken: Bool

    /// Creates options; the defaults suit the JSON services (Secrets Manager, DynamoDB).
    /// - Parameters:
    ///   - normalizePath: Normalize the path before encoding it (default `true`).
    ///   - signBody: Add and sign `x-amz-content-sha256` (default `false`).
    ///   - omitSessionToken: Send the session token without signing it (default `false`).
    public init(normalizePath: Bool = true, signBody: Bool = false, omitSessionToken: Bool = false) {
        self.normalizePath = normalizePath
        self.signBody = signBody
        self.omitSessionToken = omitSessionToken
    }
}
