#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulseDomain
import Testing

/// Shared settings, clock and assertions for the auth tests.
enum AuthFixture {
    /// A 64-byte test key (not the development key): long enough that the tests can also
    /// sign HS384 / HS512 with it, which jwt-kit asserts against for shorter keys.
    static let key = "auth-tests-hs256-key-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDE"
    /// The fixed "now" every test authenticates at.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// `now` in seconds, for hand-written payloads.
    static let nowSeconds = 1_800_000_000

    static func settings() throws -> AuthSettings {
        try AuthSettings(key: Array(key.utf8))
    }

    static func authenticator(mode: AuthSettings.Mode = .hs256) async throws -> Authenticator {
        Authenticator(settings: mode == .apigateway ? .apiGatewayAuthorizer : try settings())
    }

    static func minter() async throws -> DevelopmentTokenMinter {
        try DevelopmentTokenMinter(settings: settings())
    }

    /// A token from the minter for `subject`, valid from an hour ago for `expiresIn` seconds after `now`.
    static func mint(subject: String = "user-1", name: String? = "Ada", email: String? = "ada@example.com", expiresIn: TimeInterval = 600) async throws -> String {
        try await minter().mint(
            subject: subject, name: name, email: email,
            issuedAt: now.addingTimeInterval(-3600), expiresAt: now.addingTimeInterval(expiresIn)
        )
    }
}

/// The user a token signed over `payload` authenticates as, at ``AuthFixture/now``.
func acceptedPayload(_ payload: String) async throws -> AuthenticatedUser {
    let token = try await TokenForge.hmac(payload: payload)
    return try await AuthFixture.authenticator()
        .authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
}

/// Expects a token signed over `payload` to be refused with `expected`.
func expectRefusedPayload(_ payload: String, _ expected: AuthenticationError, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let token = try await TokenForge.hmac(payload: payload)
    await expectRefused(try await AuthFixture.authenticator(), header: "Bearer \(token)", expected, sourceLocation: sourceLocation)
}

/// Expects `authenticate` to refuse, with `expected` when given, and checks that the error
/// text never carries the token or any of its segments.
func expectRefused(
    _ authenticator: Authenticator,
    header: String?,
    claims: [String: String]? = nil,
    _ expected: AuthenticationError? = nil,
    at now: Date = AuthFixture.now,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        let user = try await authenticator.authenticate(authorizationHeader: header, authorizerClaims: claims, now: now)
        Issue.record("accepted as \(user.userID)", sourceLocation: sourceLocation)
    } catch {
        if let expected {
            #expect(error == expected, sourceLocation: sourceLocation)
        }
        expectNoTokenLeak(error, header: header, sourceLocation: sourceLocation)
    }
}

/// Checks that no piece of the token longer than a few characters appears in the error's text.
func expectNoTokenLeak(_ error: AuthenticationError, header: String?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let header else { return }
    let texts = [error.reason, error.description, String(describing: error), String(reflecting: error)]
    let pieces = header.split(whereSeparator: { " .\t".contains($0) }).map(String.init).filter { $0.count >= 8 }
    for text in texts {
        if header.count >= 8 {
            #expect(!text.contains(header), sourceLocation: sourceLocation)
        }
        for piece in pieces {
            #expect(!text.contains(piece), "error text carries part of the token", sourceLocation: sourceLocation)
        }
    }
}
