import Foundation
import PayPulseFakeGoogle
import PayPulsePorts
import PayPulseTestSupport
import Testing

/// AWS over HTTPS as in production: `AWS_CA_BUNDLE`, as every AWS SDK reads it (the CAs
/// trusted for AWS endpoints alone: a VPC endpoint or a proxy with a private CA), and one
/// connection kept across warm invocations. The built user-profile reaches moto through
/// nginx terminating TLS with a self-signed certificate no system store trusts.
@Suite("AWS over HTTPS with a private CA")
struct AWSTrustTests {
    /// A private moto holding the manifest's user (no other suite resets it), its port, and
    /// the server itself, which stops when released.
    private static func seededMoto() async throws -> (ReplayBackend, Int, MotoServer) {
        let moto = try await MotoServer.launchPrivate()
        let backend = try await ReplayBackend.aws(on: moto)
        let seed = ReplayManifest.shared.user
        try await backend.users.putUser(.init(userID: seed.user_id, name: seed.name, email: seed.email, createdOn: seed.created_on))
        return (backend, try #require(moto.endpoint.split(separator: ":").last.flatMap { Int($0) }), moto)
    }

    @Test("trusted through AWS_CA_BUNDLE the call succeeds; without it, or with another CA there, it is refused as a TLS failure (503)")
    func privateCA() async throws {
        var (backend, motoPort, moto) = try await Self.seededMoto()
        defer { withExtendedLifetime(moto) {} }
        let relay = try TLSTerminator(forwardingTo: motoPort), other = try TLSTerminator(forwardingTo: motoPort)
        defer { relay.stop(); other.stop() }
        backend.environment["AWS_ENDPOINT_URL"] = relay.url
        let event = ReplayManifest.bytes("user-profile/v2-not-connected.json")
        func profile(_ extra: [String: String]) async throws -> FunctionProcess.Result {
            try await FunctionProcess.run("user-profile", event: event, environment: backend.environment.merging(extra) { $1 })
        }

        let trusted = try await profile(["AWS_CA_BUNDLE": relay.certificatePath])
        #expect(trusted.stdout.contains(#""statusCode":200"#), "\(trusted.stdout) \(trusted.stderr.suffix(800))")
        #expect(relay.requests >= 2, "the users table and the grant were read through the TLS endpoint")
        for (why, extra) in [
            ("the system's CAs", [:]),
            ("another private CA", ["AWS_CA_BUNDLE": other.certificatePath]),
            // PAYPULSE_CA_BUNDLE is what Google's calls trust; AWS_CA_BUNDLE replaces it for AWS.
            ("another CA for AWS, this one for the rest", ["AWS_CA_BUNDLE": other.certificatePath, "PAYPULSE_CA_BUNDLE": relay.certificatePath]),
        ] {
            let refused = try await profile(extra)
            #expect(refused.stdout.contains(#""statusCode":503"#), "\(why): \(refused.stdout)")
        }
        let unreadable = try await profile(["AWS_CA_BUNDLE": "/nonexistent/ca.pem"])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("AWS_CA_BUNDLE"), "\(unreadable.stderr.suffix(400))")
    }

    @Test("a warm function keeps its TLS connections: four invocations in one process open no more than one may")
    func keptAlive() async throws {
        var (backend, motoPort, moto) = try await Self.seededMoto()
        defer { withExtendedLifetime(moto) {} }
        let event = ReplayManifest.bytes("user-profile/v2-not-connected.json")
        var seen: [(invocations: Int, connections: Int, requests: Int)] = []
        for invocations in [1, 4] {
            let endpoint = try TLSTerminator(forwardingTo: motoPort)
            defer { endpoint.stop() }
            backend.environment["AWS_ENDPOINT_URL"] = endpoint.url
            backend.environment["AWS_CA_BUNDLE"] = endpoint.certificatePath
            let run = try await LambdaLoopRun.run("user-profile", events: Array(repeating: event, count: invocations), environment: backend.environment)
            #expect(run.posted.count == invocations && run.posted.allSatisfy { $0.contains(#""statusCode":200"#) }, "\(run.posted) \(run.stderr.suffix(600))")
            seen.append((invocations, endpoint.connections, endpoint.requests))
        }
        // Each invocation reads the user and the grant at once: the requests grow with the
        // invocations; the connections stay at most the two one invocation may open (whether
        // the second read finds the first's connection idle depends on timing), where a
        // connection per invocation would be four or more.
        #expect(seen[1].requests == 4 * seen[0].requests && seen[0].requests >= 2, "\(seen)")
        #expect((1...2).contains(seen[0].connections) && (1...2).contains(seen[1].connections), "new TLS connections on warm invocations: \(seen)")
    }

    @Test("a warm store-tokens keeps both its connections: to AWS (trusted through AWS_CA_BUNDLE) and to Google (PAYPULSE_CA_BUNDLE)")
    func keptAliveToGoogle() async throws {
        var (backend, motoPort, moto) = try await Self.seededMoto()
        defer { withExtendedLifetime(moto) {} }
        let google = try ReplayManifest.shared.fakeGoogle()
        defer { google.stop() }
            _ = try await backend.secrets.createSecret(
            name: "Google-OAuth-Client-ID", value: ReplayManifest.shared.clientIDSecret, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )
        let googlePort = try #require(URL(string: google.tokenEndpoint)?.port)
        let event = ReplayManifest.bytes("store-tokens/v2-json-first-connection.json")
        var seen: [(aws: Int, google: Int, googleRequests: Int)] = []
        for invocations in [1, 4] {
            let aws = try TLSTerminator(forwardingTo: motoPort), googleTLS = try TLSTerminator(forwardingTo: googlePort)
            defer { aws.stop(); googleTLS.stop() }
            backend.environment["AWS_ENDPOINT_URL"] = aws.url
            backend.environment["AWS_CA_BUNDLE"] = aws.certificatePath
            backend.environment["GOOGLE_TOKEN_ENDPOINT"] = googleTLS.url + "/token"
            backend.environment["PAYPULSE_CA_BUNDLE"] = googleTLS.certificatePath
            let run = try await LambdaLoopRun.run("store-tokens", events: Array(repeating: event, count: invocations), environment: backend.environment)
            #expect(run.posted.count == invocations && run.posted.allSatisfy { $0.contains(#""statusCode":201"#) }, "\(run.posted) \(run.stderr.suffix(600))")
            seen.append((aws.connections, googleTLS.connections, googleTLS.requests))
        }
        // Every store proves the grant at Google: its requests grow, no connection is added.
        #expect(seen[1].googleRequests == 4 * seen[0].googleRequests && seen[0].googleRequests >= 1, "\(seen)")
        #expect(seen[0].google == 1 && seen[1].google == 1, "new TLS connections to Google on warm invocations: \(seen)")
        // At most one connection per call an invocation makes at once (two), however its
        // calls interleave; a connection per invocation would be four or more.
        #expect((1...2).contains(seen[0].aws) && (1...2).contains(seen[1].aws), "new TLS connections to AWS on warm invocations: \(seen)")
    }

    /// Runs `function` once, then four times, in its Lambda loop on `event` through a fresh
    /// TLS front for moto (and, with `googleThroughTLS`, one for Google), each run after a
    /// store-tokens over plain HTTP connected the manifest's user; each run's first answer
    /// must have `status`, the others `then`. Answers the fronts' counts.
    private func warmRuns(
        _ function: String, event: String, status: Int, then later: Int, googleThroughTLS: Bool
    ) async throws -> [(invocations: Int, aws: Int, awsRequests: Int, google: Int, googleRequests: Int)] {
        let (backend, motoPort, moto) = try await Self.seededMoto()
        defer { withExtendedLifetime(moto) {} }
        _ = try await backend.secrets.createSecret(
            name: "Google-OAuth-Client-ID", value: ReplayManifest.shared.clientIDSecret, tags: [:], clientRequestToken: SecretVersionID.random().rawValue
        )
        var seen: [(invocations: Int, aws: Int, awsRequests: Int, google: Int, googleRequests: Int)] = []
        for invocations in [1, 4] {
            // A fresh Google each run: the first run's disconnect revoked the grant at the last one.
            let google = try ReplayManifest.shared.fakeGoogle()
            defer { google.stop() }
            var plain = backend.environment
            plain["GOOGLE_TOKEN_ENDPOINT"] = google.tokenEndpoint
            plain["GOOGLE_REVOKE_ENDPOINT"] = google.revokeEndpoint
            plain["GOOGLE_RISC_CONFIGURATION_URL"] = google.riscConfigurationURL
            let googlePort = try #require(URL(string: google.revokeEndpoint)?.port)
            let connect = try await FunctionProcess.run(
                "store-tokens", event: ReplayManifest.bytes("store-tokens/v2-json-first-connection.json"), environment: plain
            )
            #expect(connect.stdout.contains(#""statusCode":201"#), "\(connect.stdout) \(connect.stderr.suffix(600))")
            let aws = try TLSTerminator(forwardingTo: motoPort), googleTLS = try TLSTerminator(forwardingTo: googlePort)
            defer { aws.stop(); googleTLS.stop() }
            var environment = plain
            environment["AWS_ENDPOINT_URL"] = aws.url
            environment["AWS_CA_BUNDLE"] = aws.certificatePath
            if googleThroughTLS {
                environment["GOOGLE_REVOKE_ENDPOINT"] = googleTLS.url + "/revoke"
                environment["PAYPULSE_CA_BUNDLE"] = googleTLS.certificatePath
            }
            let run = try await LambdaLoopRun.run(function, events: Array(repeating: ReplayManifest.bytes(event), count: invocations), environment: environment)
            #expect(
                run.posted.count == invocations && run.posted.first?.contains(#""statusCode":\#(status)"#) == true
                    && run.posted.dropFirst().allSatisfy { $0.contains(#""statusCode":\#(later)"#) },
                "\(function): \(run.posted)"
            )
            seen.append((invocations, aws.connections, aws.requests, googleTLS.connections, googleTLS.requests))
        }
        return seen
    }

    @Test("a warm disconnect keeps its connections: the first invocation revokes at Google over TLS, the next three find nothing connected over the same AWS one")
    func keptAliveByDisconnect() async throws {
        let seen = try await warmRuns("disconnect", event: "disconnect/v2-disconnect.json", status: 200, then: 404, googleThroughTLS: true)
        // Every invocation reads AWS at least once: the four went through the front.
        #expect(seen[0].awsRequests >= 1 && seen[1].awsRequests >= 4, "\(seen)")
        #expect(seen.allSatisfy { $0.google == 1 && $0.googleRequests == 1 }, "one revoke at Google over TLS per run: \(seen)")
        #expect((1...2).contains(seen[0].aws) && (1...2).contains(seen[1].aws), "new TLS connections to AWS on warm invocations: \(seen)")
    }

    @Test("a warm security-events keeps its AWS connection: one event acted on, then delivered again three times, each read from the ledger")
    func keptAliveBySecurityEvents() async throws {
        let seen = try await warmRuns("security-events", event: "security-events/v1-tokens-revoked.json", status: 202, then: 202, googleThroughTLS: false)
        // Every invocation reads the ledger at least: the four went through the front.
        #expect(seen[0].awsRequests >= 1 && seen[1].awsRequests >= 4, "\(seen)")
        #expect((1...2).contains(seen[0].aws) && (1...2).contains(seen[1].aws), "new TLS connections to AWS on warm invocations: \(seen)")
    }
}
