/// A call to the fake's RISC management API as it arrived, with the fake's verdict, so a
/// test can check what the client sent (the body's shape, the token) and why a call failed.
package struct FakeGoogleRISCRequest: Sendable {
    /// The method, e.g. `POST`.
    package var method: String
    /// The call below the API base, e.g. `stream:update` or `stream/status`.
    package var call: String
    /// The `Content-Type` header, if any.
    package var contentType: String?
    /// The bearer token sent (the service account's self-signed JWT), if any.
    package var bearerToken: String?
    /// The body as sent.
    package var body: String
    /// The status the fake answered.
    package var status: Int = 0
    /// Why the fake refused the call (a failed token check names the claim); `nil` when it
    /// answered 2xx.
    package var refusal: String?
}
