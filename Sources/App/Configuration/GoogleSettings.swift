/// Google's endpoints and where the iOS client ID lives.
public struct GoogleSettings: Sendable, Equatable {
    /// `GOOGLE_TOKEN_ENDPOINT`.
    public let tokenEndpoint: String
    /// `GOOGLE_REVOKE_ENDPOINT`.
    public let revokeEndpoint: String
    /// `GOOGLE_CLIENT_ID_SECRET_ID`: the secret holding the iOS client ID.
    public let clientIDSecretID: String

    /// Google's production endpoints.
    public static let productionTokenEndpoint = "https://oauth2.googleapis.com/token"
    /// Google's production revoke endpoint.
    public static let productionRevokeEndpoint = "https://oauth2.googleapis.com/revoke"
    /// The default client-ID secret.
    public static let defaultClientIDSecretID = "Google-OAuth-Client-ID"

    /// Creates settings (Google's production endpoints, secret `Google-OAuth-Client-ID`).
    public init(
        tokenEndpoint: String = productionTokenEndpoint, revokeEndpoint: String = productionRevokeEndpoint,
        clientIDSecretID: String = defaultClientIDSecretID
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.revokeEndpoint = revokeEndpoint
        self.clientIDSecretID = clientIDSecretID
    }

    /// Reads the Google variables.
    init(_ reader: EnvironmentReader) throws(ConfigurationError) {
        self.init(
            tokenEndpoint: try reader.url("GOOGLE_TOKEN_ENDPOINT") ?? Self.productionTokenEndpoint,
            revokeEndpoint: try reader.url("GOOGLE_REVOKE_ENDPOINT") ?? Self.productionRevokeEndpoint,
            clientIDSecretID: reader.value("GOOGLE_CLIENT_ID_SECRET_ID") ?? Self.defaultClientIDSecretID
        )
    }
}
