/// Why `paypulse serve` could not start; each is one readable line.
package enum LocalServerError: Error, CustomStringConvertible, Equatable {
    /// Something else listens on the address.
    case addressInUse(host: String, port: Int)
    /// The address cannot be listened on (not a local address, no permission).
    case cannotListen(host: String, port: Int, reason: String)
    /// Under `PAYPULSE_AUTH_MODE=apigateway` this server plays the JWT authorizer, and it
    /// was not told which issuer the authorizer trusts.
    case noAuthorizerIssuer(reason: String)

    package var description: String {
        switch self {
        case .addressInUse(let host, let port): "\(host):\(port) is already in use; stop what listens there or choose another --port"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .noAuthorizerIssuer(let reason):
            "under PAYPULSE_AUTH_MODE=apigateway this server plays API Gateway's JWT authorizer: set PAYPULSE_JWT_ISSUER and "
                + "PAYPULSE_JWT_AUDIENCE to the issuer and audience the authorizer trusts, or pass --issuer (\(reason))"
        }
    }
}
