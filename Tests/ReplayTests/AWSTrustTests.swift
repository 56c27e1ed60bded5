import Foundation
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
        func profile(_ extra: [String: String]) throws -> FunctionProcess.Result {
            try FunctionProcess.run("user-profile", event: event, environment: backend.environment.merging(extra) { $1 })
        }

        let trusted = try profile(["AWS_CA_BUNDLE": relay.certificatePath])
        #expect(trusted.stdout.contains(#""statusCode":200"#), "\(trusted.stdout) \(trusted.stderr.suffix(800))")
        #expect(relay.requests >= 2, "the users table and the grant were read through the TLS endpoint")
        for (why, extra) in [
            ("the system's CAs", [:]),
            ("another private CA", ["AWS_CA_BUNDLE": other.certificatePath]),
            // PAYPULSE_CA_BUNDLE is what Google's calls trust; AWS_CA_BUNDLE replaces it for AWS.
            ("another CA for AWS, this one for the rest", ["AWS_CA_BUNDLE": other.certificatePath, "PAYPULSE_CA_BUNDLE": relay.certificatePath]),
        ] {
            let refused = try profile(extra)
            #expect(refused.stdout.contains(#""statusCode":503"#), "\(why): \(refused.stdout)")
        }
        let unreadable = try profile(["AWS_CA_BUNDLE": "/nonexistent/ca.pem"])
        #expect(unreadable.status != 0 && unreadable.stderr.contains("AWS_CA_BUNDLE"), "\(unreadable.stderr.suffix(400))")
    }

    @Test("a warm function keeps its TLS connection: four invocations in one process open as many connections as one")
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
            let run = try LambdaLoopRun.run("user-profile", events: Array(repeating: event, count: invocations), environment: backend.environment)
            #expect(run.posted.count == invocations && run.posted.allSatisfy { $0.contains(#""statusCode":200"#) }, "\(run.posted) \(run.stderr.suffix(600))")
            seen.append((invocations, endpoint.connections, endpoint.requests))
        }
        // Each invocation reads the user and the grant: the requests grow with the invocations, the connections do not.
        #expect(seen[1].requests == 4 * seen[0].requests && seen[0].requests >= 2, "\(seen)")
        #expect(seen[0].connections >= 1 && seen[1].connections == seen[0].connections, "new TLS connections on warm invocations: \(seen)")
    }
}
