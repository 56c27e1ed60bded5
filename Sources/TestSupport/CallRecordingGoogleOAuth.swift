import PayPulsePorts

/// A ``GoogleOAuth`` that records every call in a ``StoreCallLog`` (never the token) and
/// answers as a healthy Google would: a fresh access token, a successful revoke.
public struct CallRecordingGoogleOAuth: GoogleOAuth {
    /// Where the calls go.
    public let log: StoreCallLog

    /// Creates one recording into `log`.
    public init(log: StoreCallLog = StoreCallLog()) { self.log = log }

    public func refresh(refreshToken: String, clientID: String) async throws -> GoogleTokenGrant {
        log.record("GoogleOAuth.refresh")
        return GoogleTokenGrant(accessToken: "ya29.recorded-refresh", expiresIn: 3599, scope: nil)
    }

    public func revoke(token: String) async throws {
        log.record("GoogleOAuth.revoke")
    }
}
