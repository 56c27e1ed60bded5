/// The result of signing: the intermediate artefacts and the headers to send.
///
/// The artefacts are kept because comparing them with the server's is how a
/// `SignatureDoesNotMatch` gets diagnosed (AWS returns its canonical request in the error).
public struct SignedRequest: Sendable, Hashable {
    /// The canonical request that was hashed.
    public var canonicalRequest: String
    /// The string to sign: algorithm, timestamp, credential scope and canonical request hash.
    public var stringToSign: String
    /// The signature as lowercase hex.
    public var signature: String
    /// The value of the `Authorization` header.
    public var authorization: String
    /// The headers the signer adds, in the order it adds them: `X-Amz-Security-Token`
    /// (with a session token), `X-Amz-Date`, `x-amz-content-sha256` (when signing the
    /// body), then `Authorization`.
    public var headersToAdd: [SigV4Header]
    /// The complete header list to send: the request's headers (minus any the signer
    /// replaces) followed by ``headersToAdd``.
    public var headers: [SigV4Header]

    /// Creates a signing result. The signer builds these; the initializer is public for tests.
    public init(
        canonicalRequest: String, stringToSign: String, signature: String,
        authorization: String, headersToAdd: [SigV4Header], headers: [SigV4Header]
    ) {
        self.canonicalRequest = canonicalRequest
        self.stringToSign = stringToSign
        self.signature = signature
        self.authorization = authorization
        self.headersToAdd = headersToAdd
        self.headers = headers
    }
}
