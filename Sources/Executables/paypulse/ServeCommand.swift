import ArgumentParser
import Foundation
import PayPulseFakeGoogle
import PayPulseLocalServer

/// `paypulse serve`: the API on a local port for the iOS simulator, with the console at
/// `/` and the contract at `/openapi.yaml`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the API, the console and the OpenAPI document on a local HTTP port.",
        discussion: """
            Each request becomes an API Gateway HTTP API (2.0) event and is answered by the same handlers, \
            configuration and store as the Lambda functions (the embedded store unless the environment names AWS). \
            With --fake-google, Google's token and revoke endpoints are answered on this server under /fake-google/ \
            (it knows the refresh token \(LocalServer.localGrant.refreshToken) for \(LocalServer.localGrant.account.email ?? "")); \
            add grants with --grants FILE or POST /fake-google/grants. \
            With --issuer, this server is also a development identity provider (\(LocalIssuer.discoveryPath), \(LocalIssuer.keySetPath); \
            an RS256 and an ES256 key kept in PAYPULSE_STATE_DIR/\(LocalIssuer.fileName)) and the API verifies its tokens as under \
            PAYPULSE_AUTH_MODE=jwks (issuer: this server's URL; audience: PAYPULSE_JWT_AUDIENCE or paypulse-api); \
            `paypulse jwt --alg ES256` (or RS256) mints them. Ctrl-C stops it. The console answers only at the server's own address (127.0.0.1, localhost, [::1] or --host) and its buttons carry a token of the page; the API answers any Host.
            """
    )

    @Option(help: "The address to listen on (0.0.0.0 for a device on your network, ::1 for IPv6 loopback).") var host = "127.0.0.1"
    @Option(help: "The port to listen on; 0 picks a free one.") var port = 8080
    @Flag(help: "Answer Google's token and revoke endpoints locally (no network, no Google account).") var fakeGoogle = false
    @Flag(help: "Be a local identity provider too (RS256/ES256 keys, OIDC discovery, JWKS) and verify its tokens, as PAYPULSE_AUTH_MODE=jwks.")
    var issuer = false
    @Option(help: "A JSON file of grants the stand-in Google knows (a list, or an object with google_grants such as events/manifest.json).")
    var grants: String?
    @Option(help: "Run the refresh job every this many seconds.") var refreshEvery: Int?
    @Option(help: "POST each lifecycle event (Gmail Connected, Gmail Revoked...) to this http(s) URL too, as EventBridge hands it to a target; one not answered 2xx is sent again later (docs/events.md).")
    var eventsWebhook: String?
    @Option(help: "Close a connection that sends no whole request head for this many seconds.") var idleTimeout = 30
    @Option(help: "Answer 408 and close when a request body takes longer than this many seconds.") var readTimeout = 30
    @Option(help: "On Ctrl-C or SIGTERM, wait this many seconds for requests in progress, then close every connection.")
    var shutdownGrace = 5

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        if let refreshEvery, refreshEvery < 1 { throw ValidationError("--refresh-every must be at least 1 second.") }
        if idleTimeout < 1 || readTimeout < 1 { throw ValidationError("--idle-timeout and --read-timeout must be at least 1 second.") }
        if shutdownGrace < 0 { throw ValidationError("--shutdown-grace must not be negative.") }
        if grants != nil, !fakeGoogle { throw ValidationError("--grants needs --fake-google.") }
        if let eventsWebhook, !(eventsWebhook.hasPrefix("http://") || eventsWebhook.hasPrefix("https://")) || eventsWebhook.contains(where: \.isWhitespace) {
            throw ValidationError("--events-webhook must be an http:// or https:// URL.")
        }
    }

    func run() async throws {
        var specs: [FakeGoogleGrantSpec] = []
        if let grants {
            guard let data = FileManager.default.contents(atPath: grants) else { throw CLIError("cannot read \(grants)") }
            do {
                specs = try FakeGoogleGrantSpec.list(fromJSON: data)
            } catch {
                throw CLIError("\(grants) holds no grants: \(error)")
            }
        }
        let settings = LocalServerSettings(
            host: host, port: port, fakeGoogle: fakeGoogle, issuer: issuer, grants: specs, refreshEvery: refreshEvery.map { .seconds($0) },
            eventsWebhook: eventsWebhook, idleTimeout: .seconds(idleTimeout), readTimeout: .seconds(readTimeout), shutdownGrace: .seconds(shutdownGrace)
        )
        do {
            try await LocalServer.run(settings)
        } catch let error as LocalServerError {
            throw CLIError(error.description)
        } catch let error as LocalIssuerError {
            throw CLIError(error.description)
        }
    }
}
