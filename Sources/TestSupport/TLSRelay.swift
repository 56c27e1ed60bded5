import Foundation

/// HTTPS in front of a loopback HTTP server: socat terminating TLS with a fresh
/// self-signed certificate for 127.0.0.1, for tests of what a client trusts (a private CA,
/// as a VPC endpoint or a proxy presents). Needs `socat` and `openssl`
/// (`scripts/ensure-deps.sh --with-tls-relay`).
public final class TLSRelay: Sendable {
    /// The relay's port on 127.0.0.1.
    public let port: Int
    /// The certificate to trust (PEM): the only one that verifies this relay.
    public let certificatePath: String
    private let directory: URL
    private let relay: SpawnedProcess.Running

    /// `https://127.0.0.1:PORT`.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// Starts socat on a port it picks itself (named in its log, so no port is found free
    /// here and taken by another process before socat binds it), forwarding to `upstreamPort`.
    /// - Throws: ``SpawnedProcess/Failure`` when openssl or socat is missing or does not start.
    public init(forwardingTo upstreamPort: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-relay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path, log = directory.appendingPathComponent("relay.log").path
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        let openssl = try SpawnedProcess.Running.start(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificatePath],
            environment: environment, discardOutput: true
        )
        guard try openssl.wait().status == 0 else { throw SpawnedProcess.Failure(description: "openssl could not make a certificate") }
        relay = try SpawnedProcess.Running.start(
            ["socat", "-d", "-d", "OPENSSL-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,cert=\(certificatePath),key=\(key),verify=0",
             "TCP:127.0.0.1:\(upstreamPort)"],
            environment: environment, stdoutPath: "/dev/null", stderrPath: log
        )
        let deadline = ContinuousClock.now + TestTime.scaled(.seconds(10))
        var announced: Int?
        while announced == nil, ContinuousClock.now < deadline, try relay.exitIfEnded() == nil {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on AF=2 127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                announced = Int(text[range].split(separator: ":").last ?? "")
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        guard let announced else {
            relay.terminate()
            throw SpawnedProcess.Failure(description: "socat did not say where it listens (is socat installed?)")
        }
        port = announced
    }

    /// How many client connections the relay has accepted (each one TLS handshake).
    public var acceptedConnections: Int {
        let text = (try? String(contentsOfFile: directory.appendingPathComponent("relay.log").path, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "accepting connection from").count - 1
    }

    /// Stops socat (its per-connection children end with their connections) and removes the certificate.
    public func stop() {
        relay.terminate()
        _ = try? relay.wait()
        try? FileManager.default.removeItem(at: directory)
    }
}
