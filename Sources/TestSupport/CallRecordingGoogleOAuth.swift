import PayPulsePorts

/// A ``GoogleOAuth`` that records every call in a ``StoreCallLog`` (never the token) and
/// answers as a healthy Google would: a fresh access token, a successful revoke.
package struct CallRecordingGoogleOAuth: GoogleOAuth {
    /// Where the calls go.
    package let log: StoreCallLog

    /// Creates one recording into `log`.
    package init(log: StoreCallLog = StoreCallLog()) { self.log = log }

    package func refresh(refreshToken: String, clientID: String) async throws -> GoogleRefreshAnswer {
        log.record("GoogleOAuth.refresh")
        return GoogleRefreshAnswer(accessToken: "ya29.recorded-refresh", expiresIn: 3599, scope: nil)
    }

    package func revoke(token: String) async throws {
        log.record("GoogleOAuth.revoke")
    }
}
