import Foundation
import Hummingbird
import Logging
import NIOCore
import PayPulseApp
import PayPulseDomain
import PayPulseFakeGoogle
import PayPulseRuntime
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `paypulse serve`: the API on a local HTTP/1.1 port for the iOS simulator, answered by
/// the same handlers, configuration and stores as the Lambda functions.
package enum LocalServer {
    /// The grant the stand-in Google always knows, so a developer can connect at once.
    package static let localGrant = FakeGoogleGrantSpec(
        refreshToken: "1//local-dev-refresh", account: FakeGoogleAccount(subject: "108234567890123456789", email: "jane.smith@gmail.com")
    )

    /// Serves until SIGINT or SIGTERM.
    /// - Throws: ``LocalServerError`` when the address cannot be listened on,
    ///   `ConfigurationError` for a bad environment, a `StoreError` when the store fails.
    package static func run(_ settings: LocalServerSettings) async throws {
        let port = settings.port
        if port != 0, ["127.0.0.1", "0.0.0.0", "localhost"].contains(settings.host), !FreePort.isFree(host: settings.host, port: port) {
            throw LocalServerError.addressInUse(host: settings.host, port: port)
        }
        guard port == 0, settings.fakeGoogle || settings.issuer else { return try await serve(settings, port: port) }
        // The handlers must know the stand-in's and the issuer's address before the server
        // listens, so serve picks the port itself, and picks again if another process binds it first.
        try await onPickedPort(host: settings.host, pick: { FreePort.pick(host: settings.host) }) { try await serve(settings, port: $0) }
    }

    /// Starts `start` on a port from `pick`; when that port was taken between the pick and
    /// the bind (``LocalServerError/addressInUse(host:port:)``), picks again, a few times.
    static func onPickedPort(host: String, attempts: Int = 5, pick: () -> Int?, start: (Int) async throws -> Void) async throws {
        for attempt in 1...attempts {
            guard let port = pick() else { throw LocalServerError.cannotListen(host: host, port: 0, reason: "no free port") }
            do {
                return try await start(port)
            } catch LocalServerError.addressInUse where attempt < attempts {
                continue
            }
        }
    }

    /// Builds the handlers and stores and serves on `port` until SIGINT or SIGTERM.
    private static func serve(_ settings: LocalServerSettings, port: Int) async throws {
        let baseURL = ownBaseURL(host: settings.host, port: port), fakeGoogleURL = baseURL + LocalResponder.fakeGooglePrefix
        // The receiver verifies events against the stand-in's RISC discovery document.
        var overrides = settings.fakeGoogle
            ? [
                "GOOGLE_TOKEN_ENDPOINT": fakeGoogleURL + "/token", "GOOGLE_REVOKE_ENDPOINT": fakeGoogleURL + "/revoke",
                "GOOGLE_RISC_CONFIGURATION_URL": fakeGoogleURL + FakeGoogleEndpoints.riscConfigurationPath,
            ] : [:]
        var reading = AppConfiguration.read(overrides: overrides, defaultLogLevel: .info)
        let logger = LogSetup.makeLogger(label: "paypulse-serve", settings: reading.process.logging)
        var issuer: LocalIssuer?
        let plain = try reading.configuration.get()
        let mode = try plain.jwt.authMode()
        // Under apigateway the functions keep reading the authorizer's claims; this server
        // plays the authorizer, verifying as jwks does, under the issuer named or its own.
        var authorizerOverrides = overrides.merging([JWTConfiguration.modeVariable: AuthSettings.Mode.jwks.rawValue]) { _, new in new }
        if settings.issuer {
            // The issuer's overrides keep the environment's audience, so the configuration is read again with them.
            let made = try LocalIssuer.prepare(url: baseURL, stateDirectory: plain.stateDirectory, insideLambda: plain.insideLambda, logger: logger)
            let issuerOverrides = plain.jwt.localIssuerOverrides(issuer: made.url, keySetURL: made.keySetURL)
            authorizerOverrides.merge(issuerOverrides) { _, new in new }
            if mode != .apigateway {
                overrides.merge(issuerOverrides) { _, new in new }
                reading = AppConfiguration.read(overrides: overrides, defaultLogLevel: .info)
            }
            issuer = made
        }
        var assembly = try Assembly.build(configuration: try reading.configuration.get(), logger: logger)
        if let webhook = settings.eventsWebhook {
            var wrappers = PortWrappers()
            let transport = assembly.transport
            wrappers.events = { EventsWebhook(inner: $0, url: webhook, transport: transport, logger: logger) }
            assembly = assembly.wrapping(wrappers)
        }
        let backends = try assembly.backends()
        let authSettings = try await assembly.authSettings(secrets: backends.secrets)
        var authorizer: Authenticator?
        if mode == .apigateway {
            do {
                let configuration = try AppConfiguration.read(overrides: authorizerOverrides, defaultLogLevel: .info).configuration.get()
                authorizer = try await Assembly.build(configuration: configuration, logger: logger).authenticator(secrets: backends.secrets)
            } catch {
                throw LocalServerError.noAuthorizerIssuer(reason: "\(error)")
            }
        }
        // The console signs as the app's tokens are signed: by the issuer, or with the HS256
        // key; under jwks or apigateway without --issuer the app's provider signs, not us.
        var minter: (any TokenMinter)? = issuer.map { $0.minter(.es256, audience: authSettings.audience) }
        if minter == nil, authSettings.mode == .hs256 { minter = try DevelopmentTokenMinter(settings: authSettings) }

        var fakeGoogle: FakeGoogleEndpoints?
        var googleDescription = assembly.configuration.google.tokenEndpoint
        if settings.fakeGoogle {
            let clients: GoogleClients
            do {
                clients = try await LocalClientID.ensure(in: backends.secrets, secretID: assembly.configuration.google.clientIDSecretID)
            } catch {
                // The store may be down now and back later; the handlers will say so per request.
                logger.warning("the client ID could not be read or stored; the stand-in Google uses the local one", metadata: ["reason": "\(error)"])
                clients = GoogleClients(ids: [LocalClientID.placeholder])
            }
            let endpoints = FakeGoogleEndpoints(clientIDs: clients.ids)
            endpoints.mount(at: fakeGoogleURL)
            ([localGrant] + settings.grants).forEach(endpoints.addGrant)
            fakeGoogle = endpoints
            googleDescription = "local stand-in at \(fakeGoogleURL) (clients \(clients.ids.joined(separator: ", ")))"
        }
        let storeTokens = try await assembly.eventHandlers(for: .storeTokens), userProfile = try await assembly.eventHandlers(for: .userProfile)
        let disconnect = try await assembly.eventHandlers(for: .disconnect)
        let securityEvents = try await assembly.eventHandlers(for: .securityEvents)
        let activity = ConsoleActivity(
            refresh: try await assembly.eventHandlers(for: .tokenRefresh), disconnect: disconnect,
            minter: minter, unmintable: DevelopmentTokenMinter.noKey(mode), logger: logger
        )
        let consoleGuard = ConsoleGuard(host: settings.host, port: port)
        let responder = LocalResponder(
            api: [
                "/v1/auth/gmail-tokens": [
                    "POST": GatewayBridge(handlers: storeTokens, authorizer: authorizer), "DELETE": GatewayBridge(handlers: disconnect, authorizer: authorizer),
                ],
                "/v1/user/me": ["GET": GatewayBridge(handlers: userProfile, authorizer: authorizer)],
                "/v1/google/security-events": ["POST": GatewayBridge(handlers: securityEvents)],
            ],
            fakeGoogle: fakeGoogle,
            riscEvents: fakeGoogle.map { FakeGoogleRISCEvents(google: $0, grants: backends.grants, receiver: baseURL + "/v1/google/security-events") },
            issuer: try issuer.map(LocalResponder.IssuerDocuments.init), activity: activity, backends: (backends.grants, backends.users, try assembly.securityEventLedger()),
            lifecycleEvents: try assembly.embeddedLifecycleEvents(),
            storeDescription: describeStore(assembly.configuration), googleDescription: googleDescription,
            deletionDateMeaning: ConsoleGrant.DeletionDateMeaning(store: assembly.configuration.store), consoleGuard: consoleGuard,
            readTimeout: settings.readTimeout, logger: logger
        )
        let host = settings.host, chosenPort = port, issuerNote = issuer == nil ? "" : ", issuer at \(LocalIssuer.discoveryPath)"
        let app = Application(
            responder: responder,
            // Closes a connection that sends nothing (or only part of a request head) for this long.
            server: .http1(configuration: .init(idleTimeout: TimeAmount(settings.idleTimeout))),
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? chosenPort
                consoleGuard.listening(on: bound)
                announce("paypulse serve: listening on http://\(host):\(bound) (console at /, contract at /openapi.yaml\(issuerNote))")
            },
            logger: logger
        )
        let timer = settings.refreshEvery.map { interval in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    if Task.isCancelled { break }
                    await activity.runRefresh()
                }
            }
        }
        defer { timer?.cancel() }
        // A client holding a request open must not hold the stop: after the grace period
        // the server is cancelled, which closes every connection.
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = settings.shutdownGrace
        do {
            try await ServiceGroup(configuration: group).run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw LocalServerError.addressInUse(host: host, port: port)
        } catch let error as IOError {
            throw LocalServerError.cannotListen(host: host, port: port, reason: String(cString: strerror(error.errnoCode)))
        }
    }

    /// The server's own base URL, for the handlers to reach it (the stand-in Google): a
    /// wildcard address becomes a loopback one, an IPv6 address is bracketed.
    static func ownBaseURL(host: String, port: Int) -> String {
        let own = switch host {
        case "0.0.0.0", "localhost": "127.0.0.1"
        case "::", "[::]": "[::1]"
        default: ConsoleGuard.bracketed(host)
        }
        return "http://\(own):\(port)"
    }

    /// Where the store lives, for the console and the start-up line.
    static func describeStore(_ configuration: AppConfiguration) -> String {
        switch configuration.store {
        case .embedded: "embedded store in \(configuration.stateDirectory)/"
        case .aws: "AWS Secrets Manager at \(configuration.aws?.secretsManagerEndpoint ?? "?")"
        case .dynamodb: "DynamoDB table \(configuration.tokenTable?.table ?? "?") at \(configuration.aws?.dynamoDBEndpoint ?? "?")"
        }
    }

    /// One line on standard output, flushed at once (a test or script waits for it).
    private static func announce(_ line: String) {
        _ = (line + "\n").utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
    }
}
