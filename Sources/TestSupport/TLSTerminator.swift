import Foundation

/// HTTPS in front of a loopback HTTP server, as AWS's and Google's endpoints present it: nginx
/// terminating TLS with a fresh self-signed certificate for 127.0.0.1 (a private CA, as a VPC
/// endpoint or a proxy has) and keeping client connections open whatever the server behind
/// does (moto closes every connection). Its log names the connection of each request, so a
/// test counts TLS handshakes. Needs `nginx` and `openssl` (`scripts/ensure-deps.sh --with-tls-relay`).
package final class TLSTerminator: Sendable {
    /// The port on 127.0.0.1.
    package let port: Int
    /// The certificate to trust (PEM): the only one that verifies this endpoint.
    package let certificatePath: String
    private let directory: URL
    private let server: SpawnedProcess.Running

    /// `https://127.0.0.1:PORT`.
    package var url: String { "https://127.0.0.1:\(port)" }

    /// Starts nginx forwarding to `upstreamPort`. nginx cannot bind port 0 and say which port
    /// it got, so a free port is picked here; when another process binds it first, nginx
    /// exits ("Address already in use") and another port is tried.
    /// - Throws: ``SpawnedProcess/Failure`` when openssl or nginx is missing or does not start.
    package init(forwardingTo upstreamPort: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-terminator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let environment = ["PATH": (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/usr/local/sbin:/opt/homebrew/bin"]
        let openssl = try SpawnedProcess.Running.start(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificatePath],
            environment: environment, discardOutput: true
        )
        guard try openssl.wait().status == 0 else { throw SpawnedProcess.Failure(description: "openssl could not make a certificate") }
        var started: (Int, SpawnedProcess.Running)?
        for _ in 0..<5 where started == nil {
            let port = try RefusingLoopbackPort.free()
            let configuration = directory.appendingPathComponent("nginx.conf").path
            try Self.configuration(port: port, upstreamPort: upstreamPort, certificate: certificatePath, key: key, directory: directory.path)
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            let nginx = try SpawnedProcess.Running.start(
                ["nginx", "-p", directory.path, "-c", configuration, "-e", directory.appendingPathComponent("error.log").path],
                environment: environment, discardOutput: true
            )
            if try Self.listening(nginx, port: port) { started = (port, nginx) }
        }
        guard let (port, nginx) = started else {
            let log = (try? String(contentsOfFile: directory.appendingPathComponent("error.log").path, encoding: .utf8)) ?? ""
            throw SpawnedProcess.Failure(description: "nginx did not start (is nginx installed?): \(log.suffix(600))")
        }
        self.port = port
        server = nginx
    }

    /// TLS connections accepted so far: the distinct connections the access log names.
    package var connections: Int {
        let log = (try? String(contentsOfFile: directory.appendingPathComponent("access.log").path, encoding: .utf8)) ?? ""
        return Set(log.split(separator: "\n").compactMap { $0.split(separator: " ").first }).count
    }

    /// Requests answered so far.
    package var requests: Int {
        let log = (try? String(contentsOfFile: directory.appendingPathComponent("access.log").path, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").count
    }

    /// Stops nginx and removes its files.
    package func stop() {
        server.terminate()
        _ = try? server.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether `nginx` listens on `port`: a connection succeeds while it runs. One that lost
    /// the port exits; `false` then.
    private static func listening(_ nginx: SpawnedProcess.Running, port: Int) throws -> Bool {
        // Returns as soon as nginx listens, so a generous limit costs a healthy start nothing.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try nginx.exitIfEnded() != nil { return false }
            if RefusingLoopbackPort.accepts(port: port) { return try nginx.exitIfEnded() == nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
        nginx.terminate()
        _ = try? nginx.wait()
        return false
    }

    /// One worker, no daemon, every file under `directory`; the access log names each
    /// request's connection. Client connections stay open as long as a client keeps them.
    private static func configuration(port: Int, upstreamPort: Int, certificate: String, key: String, directory: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        events { worker_connections 256; }
        http {
            log_format connections '$connection $connection_requests $request_method $status';
            access_log \(directory)/access.log connections;
            client_body_temp_path \(directory)/body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            keepalive_timeout 300s;
            keepalive_requests 100000;
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(certificate);
                ssl_certificate_key \(key);
                location / {
                    proxy_pass http://127.0.0.1:\(upstreamPort);
                    proxy_set_header Host $http_host;
                    proxy_buffering off;
                }
            }
        }
        """
    }
}
