import Foundation
import PayPulseDomain
import PayPulsePorts
import PayPulseTestSupport
import PayPulseTransport
import Testing

@testable import PayPulseIssuerKeys

/// The issuer's key endpoint over real HTTP (libcurl to a scripted loopback server): the
/// JWKS at a given URL or through OpenID Connect discovery, `Cache-Control`, and every way
/// an answer can be unusable, each an ``IssuerKeysUnavailable`` logged with its reason.
@Suite("Issuer keys over HTTP")
struct HTTPIssuerKeySourceTests {
    private static let transport = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(30)))

    private static func source(_ location: HTTPIssuerKeySource.Location, logs: LogCapture = LogCapture()) -> HTTPIssuerKeySource {
        HTTPIssuerKeySource(location: location, transport: transport, logger: logs.logger)
    }

    /// The scripted server's own URL, as the client reached it.
    private static func ownURL(_ request: ScriptedHTTPServer.Request) -> String { "http://" + (request.headers["host"] ?? "") }

    private static func json(_ body: String, headers: [String: String] = [:]) -> ScriptedHTTPServer.Action {
        .respond(status: 200, headers: ["content-type": "application/json"].merging(headers) { $1 }, body: body)
    }

    @Test("the JWKS at the URL given, with its max-age; each fetch asks again")
    func keySetURL() async throws {
        let keys = try TestIssuer.standardKeySet()
        let server = try ScriptedHTTPServer { _, _ in Self.json(keys, headers: ["cache-control": "public, max-age=21600, must-revalidate"]) }
        defer { server.stop() }
        let source = Self.source(.keySet(server.url + "/keys"))
        let answer = try await source.fetchKeySet()
        #expect(answer.document == Array(keys.utf8) && answer.maxAge == 21600)
        _ = try await source.fetchKeySet()
        #expect(server.requests.map { "\($0.method) \($0.target)" } == ["GET /keys", "GET /keys"])
        #expect(server.requests.first?.headers["accept"] == "application/json")
    }

    @Test("discovery: the issuer's document names the JWKS; it is read once, and a trailing slash is tolerated")
    func discovery() async throws {
        let keys = try TestIssuer.standardKeySet()
        let server = try ScriptedHTTPServer { _, request in
            let url = Self.ownURL(request)
            return switch request.target {
            case "/tenant/.well-known/openid-configuration":
                Self.json(#"{"issuer":"\#(url)/tenant/","jwks_uri":"\#(url)/tenant/keys","id_token_signing_alg_values_supported":["RS256"]}"#)
            case "/tenant/keys": Self.json(keys)
            default: .respond(status: 404)
            }
        }
        defer { server.stop() }
        let source = Self.source(.discovery(issuer: server.url + "/tenant/"))
        #expect(try await source.fetchKeySet().document == Array(keys.utf8))
        #expect(try await source.fetchKeySet().maxAge == nil)
        #expect(server.requests.map(\.target) == ["/tenant/.well-known/openid-configuration", "/tenant/keys", "/tenant/keys"])

        // The whole chain: the authenticator finds the keys through discovery and verifies.
        let authenticator = Authenticator(settings: try TestIssuer.settings(issuer: server.url + "/tenant/"), issuerKeys: Self.source(.discovery(issuer: server.url + "/tenant/")))
        let token = try TestIssuer.es256(payload: TestIssuer.payload(["iss": #""\#(server.url)/tenant/""#]))
        let user = try await authenticator.authenticate(authorizationHeader: "Bearer \(token)", authorizerClaims: nil, now: AuthFixture.now)
        #expect(user.userID.rawValue == "user-1")
    }

    @Test("unusable answers are unavailable, each logged with its reason", arguments: [
        ("another issuer in the discovery document", "names another issuer"),
        ("a jwks_uri over plain HTTP off the machine", "no jwks_uri over HTTPS"),
        ("a discovery document that is not JSON", "not a JSON object"),
        ("the JWKS answers 500", "answered HTTP 500"),
        ("the JWKS is larger than 64 KiB", "larger than 64 KiB"),
    ])
    func unusable(_ scenario: (String, String)) async throws {
        let (name, reason) = scenario
        let server = try ScriptedHTTPServer { _, request in
            let url = Self.ownURL(request)
            let discovery: String =
                switch name {
                case "another issuer in the discovery document": #"{"issuer":"https://elsewhere.example","jwks_uri":"\#(url)/keys"}"#
                case "a jwks_uri over plain HTTP off the machine": #"{"issuer":"\#(url)","jwks_uri":"http://keys.example.com/keys"}"#
                case "a discovery document that is not JSON": "<html>hello</html>"
                default: #"{"issuer":"\#(url)","jwks_uri":"\#(url)/keys"}"#
                }
            if request.target == "/.well-known/openid-configuration" { return Self.json(discovery) }
            if name == "the JWKS answers 500" { return .respond(status: 500, body: "oops") }
            if name == "the JWKS is larger than 64 KiB" { return Self.json(#"{"keys":[]}"# + String(repeating: " ", count: 70_000)) }
            return Self.json(#"{"keys":[]}"#)
        }
        defer { server.stop() }
        let logs = LogCapture()
        await #expect(throws: IssuerKeysUnavailable.self, "\(name)") { try await Self.source(.discovery(issuer: server.url), logs: logs).fetchKeySet() }
        #expect(logs.lines.contains { $0.contains("issuer keys unavailable") && $0.contains(reason) }, "\(name): \(logs.lines)")
    }

    /// A loopback stand-in for Google's RISC endpoints: the discovery document at
    /// `/.well-known/risc-configuration` (`document` given the server's own URL) and the
    /// JWKS at `/oauth2/v3/certs`, each with its `Cache-Control` when given.
    private static func riscServer(
        document: @escaping @Sendable (String) -> String, documentCache: String? = nil, keys: String, keysCache: String? = nil
    ) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { _, request in
            switch request.target {
            case "/.well-known/risc-configuration": Self.json(document(Self.ownURL(request)), headers: documentCache.map { ["cache-control": $0] } ?? [:])
            case "/oauth2/v3/certs": Self.json(keys, headers: keysCache.map { ["cache-control": $0] } ?? [:])
            default: .respond(status: 404)
            }
        }
    }

    /// Google's document, its JWKS on `url`.
    private static func googleDocument(_ url: String) -> String {
        #"{"issuer":"https://accounts.google.com","jwks_uri":"\#(url)/oauth2/v3/certs","#
            + #""delivery_methods_supported":["https://schemas.openid.net/secevent/risc/delivery-method/push"],"#
            + #""add_subject_endpoint":"https://risc.googleapis.com/v1beta/subjects:add"}"#
    }

    @Test("RISC discovery: the document at its URL names the issuer, carried with the keys; both are read again with each fetch")
    func riscConfiguration() async throws {
        let keys = try TestIssuer.standardKeySet()
        let server = try Self.riscServer(document: Self.googleDocument, documentCache: "public, max-age=3600", keys: keys, keysCache: "public, max-age=21600")
        defer { server.stop() }
        let source = Self.source(.riscConfiguration(server.url + "/.well-known/risc-configuration"))
        #expect(try await source.fetchKeySet() == PublishedKeySet(document: Array(keys.utf8), maxAge: 3600, issuer: "https://accounts.google.com"))
        _ = try await source.fetchKeySet()
        let both = ["/.well-known/risc-configuration", "/oauth2/v3/certs"]
        #expect(server.requests.map(\.target) == both + both)
        #expect(HTTPIssuerKeySource.Location.googleRISC == .riscConfiguration("https://accounts.google.com/.well-known/risc-configuration"))
    }

    @Test("RISC discovery: the answer is kept for the shorter of the document's and the key set's lifetimes", arguments: [
        ("public, max-age=3600", "public, max-age=21600", 3600), ("max-age=86400", "max-age=600", 600), (nil, "max-age=600", 600),
        ("max-age=600", nil, 600), ("no-cache", "max-age=21600", 0), (nil, nil, nil),
    ] as [(String?, String?, Int?)])
    func riscLifetime(_ scenario: (String?, String?, Int?)) async throws {
        let server = try Self.riscServer(document: Self.googleDocument, documentCache: scenario.0, keys: try TestIssuer.standardKeySet(), keysCache: scenario.1)
        defer { server.stop() }
        #expect(try await Self.source(.riscConfiguration(server.url + "/.well-known/risc-configuration")).fetchKeySet().maxAge == scenario.2)
    }

    @Test("RISC discovery end to end: the document's issuer, not the document's URL, is what iss must name")
    func riscChain() async throws {
        let server = try Self.riscServer(document: Self.googleDocument, keys: try TestIssuer.standardKeySet())
        defer { server.stop() }
        let verifier = SecurityEventVerifier(
            keys: Self.source(.riscConfiguration(server.url + "/.well-known/risc-configuration")), clientIDs: { [TestIssuer.audience] }
        )
        func token(iss: String) throws -> String {
            try TestIssuer.rs256(payload: TestIssuer.payload([
                "iss": #""\#(iss)""#, "iat": "\(AuthFixture.nowSeconds)", "jti": #""a1""#, "exp": nil, "sub": nil,
                "events": #"{"https://schemas.openid.net/secevent/risc/event-type/sessions-revoked":{"subject":{"subject_type":"iss-sub","iss":"https://accounts.google.com/","sub":"42"}}}"#,
            ]))
        }
        let verified = try await verifier.verify(try token(iss: "https://accounts.google.com/"), now: AuthFixture.now)
        #expect(verified.events == [SecurityEvent(type: .sessionsRevoked, subject: .googleAccount(GoogleAccountSubject(subject: "42", issuer: "https://accounts.google.com/")))])
        await expectRejected(verifier, try token(iss: server.url), "invalid_issuer", .wrongIssuer)
    }

    @Test("unusable RISC answers are unavailable, each logged with its reason", arguments: [
        ("a jwks_uri over plain HTTP off the machine", "no jwks_uri over HTTPS"),
        ("a document without issuer", "names no issuer"),
        ("a document that is not JSON", "not a JSON object"),
        ("the document answers 404", "answered HTTP 404"),
        ("the JWKS answers 500", "answered HTTP 500"),
    ])
    func unusableRISC(_ scenario: (String, String)) async throws {
        let (name, reason) = scenario
        let server = try ScriptedHTTPServer { _, request in
            let url = Self.ownURL(request)
            if request.target == "/.well-known/risc-configuration" {
                return switch name {
                case "a jwks_uri over plain HTTP off the machine": Self.json(#"{"issuer":"https://accounts.google.com","jwks_uri":"http://www.googleapis.com/oauth2/v3/certs"}"#)
                case "a document without issuer": Self.json(#"{"jwks_uri":"\#(url)/oauth2/v3/certs"}"#)
                case "a document that is not JSON": .respond(status: 200, body: "<html>hello</html>")
                case "the document answers 404": .respond(status: 404)
                default: Self.json(Self.googleDocument(url))
                }
            }
            return .respond(status: 500, body: "oops")
        }
        defer { server.stop() }
        let logs = LogCapture()
        await #expect(throws: IssuerKeysUnavailable.self, "\(name)") {
            try await Self.source(.riscConfiguration(server.url + "/.well-known/risc-configuration"), logs: logs).fetchKeySet()
        }
        #expect(logs.lines.contains { $0.contains("issuer keys unavailable") && $0.contains(reason) }, "\(name): \(logs.lines)")
    }

    @Test("a RISC document URL over plain HTTP off the machine is not even asked")
    func riscConfigurationOverHTTP() async throws {
        let logs = LogCapture()
        await #expect(throws: IssuerKeysUnavailable(reason: "the RISC configuration URL is not HTTPS")) {
            try await Self.source(.riscConfiguration("http://accounts.google.com/.well-known/risc-configuration"), logs: logs).fetchKeySet()
        }
    }

    @Test("an issuer where nothing listens is unavailable")
    func unreachable() async throws {
        let port = try RefusingLoopbackPort.make()
        await #expect(throws: IssuerKeysUnavailable.self) { try await Self.source(.keySet("http://127.0.0.1:\(port)/keys")).fetchKeySet() }
    }

    @Test("Cache-Control: max-age read among other directives; no-cache and no-store are 0; nothing usable is nil")
    func cacheControl() {
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: "public, max-age=19845, must-revalidate, no-transform") == 19845)
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: "Max-Age=60") == 60)
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: "max-age=60, no-cache") == 0)
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: "no-store") == 0)
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: "max-age=soon") == nil)
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: "max-age=-5") == nil)
        #expect(HTTPIssuerKeySource.maxAge(cacheControl: nil) == nil)
    }

    @Test("only HTTPS leaves the machine: plain HTTP to loopback alone")
    func allowedURLs() {
        for url in ["https://cognito-idp.eu-west-1.amazonaws.com/pool/.well-known/jwks.json", "http://127.0.0.1:8080/keys", "http://localhost/keys", "http://[::1]:9/k", "http://127.9.9.9"] {
            #expect(HTTPIssuerKeySource.isAllowed(url: url), "\(url)")
        }
        for url in ["http://issuer.example.com/keys", "http://127.0.0.1.attacker.example/keys", "http://localhost.attacker.example", "http://user@127.0.0.1/x",
                    "http://128.0.0.1/", "ftp://127.0.0.1/keys", "https://", "HTTP://127.0.0.1", "file:///etc/passwd", "http://1270.0.0.1/",
                    "http://127.evil.example.com/keys", "http://127.0.0.256/", "http://127.0.0.1./"] {
            #expect(!HTTPIssuerKeySource.isAllowed(url: url), "\(url)")
        }
    }
}
