import CCurl
import Foundation
import PayPulseTestSupport
import Synchronization
import Testing

@testable import PayPulseTransport

@Suite("libcurl HTTP client failures are told apart")
struct TransportFailureTests {
    let client = CurlHTTPClient(configuration: .init(connectTimeout: TestTime.scaled(.seconds(2)), maxResponseBytes: 1024))

    private func failure(of request: HTTPRequest) async -> TransportError? {
        do {
            _ = try await client.execute(request)
            return nil
        } catch {
            return error as? TransportError
        }
    }

    @Test("a server that accepts and never answers hits the total timeout")
    func timeout() async throws {
        let server = try ScriptedHTTPServer { _, _ in .stall }
        defer { server.stop() }
        let error = await failure(of: HTTPRequest(method: "GET", url: server.url, timeout: .milliseconds(300)))
        #expect(error == .timeout)
        #expect(error?.requestMayHaveBeenSent == true)
    }

    @Test("nobody listening is a refused connection, known not to have been sent")
    func refused() async throws {
        let port = try RefusingLoopbackPort.make()
        let error = await failure(of: HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        #expect(error == .connectionRefused)
        #expect(error?.requestMayHaveBeenSent == false)
    }

    @Test("a connection closed without an answer is a reset")
    func reset() async throws {
        let server = try ScriptedHTTPServer { _, _ in .close }
        defer { server.stop() }
        #expect(await failure(of: HTTPRequest(method: "POST", url: server.url, body: [1])) == .connectionReset)
    }

    @Test("a body shorter than announced is a truncated body")
    func truncated() async throws {
        let server = try ScriptedHTTPServer { _, _ in .truncate(announced: 100, body: "{\"partial\":") }
        defer { server.stop() }
        #expect(await failure(of: HTTPRequest(method: "GET", url: server.url)) == .truncatedBody)
    }

    @Test("a child process started while the server holds the connection does not keep it open")
    func childProcessInheritsNothing() async throws {
        // Other suites spawn executables while this one runs: a child that inherited the
        // server's end would hold the connection open after the server closed it, and the
        // client would wait out its time-out instead of seeing the short body.
        let children = Mutex<[pid_t]>([])
        let server = try ScriptedHTTPServer { _, _ in
            var pid = pid_t()
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("5"), nil]
            defer { argv.forEach { free($0) } }
            if posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0 { children.withLock { $0.append(pid) } }
            return .truncate(announced: 100, body: "{\"partial\":")
        }
        defer {
            server.stop()
            for pid in children.withLock({ $0 }) {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
        let error = await failure(of: HTTPRequest(method: "GET", url: server.url, timeout: .seconds(4)))
        #expect(children.withLock { $0.count } == 1)
        #expect(error == .truncatedBody)
    }

    @Test("a body over the cap is refused, announced or streamed")
    func tooLarge() async throws {
        let server = try ScriptedHTTPServer { _, _ in .respond(status: 200, body: String(repeating: "x", count: 5000)) }
        defer { server.stop() }
        #expect(await failure(of: HTTPRequest(method: "GET", url: server.url)) == .responseTooLarge)
    }

    @Test("TLS to a plain HTTP server fails as TLS, with verification on")
    func tls() async throws {
        let server = try ScriptedHTTPServer(greeting: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") { _, _ in .close }
        defer { server.stop() }
        let error = await failure(of: HTTPRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/"))
        #expect(error == .tlsFailure)
    }

    @Test("a configured CA file is what libcurl verifies against (CURLOPT_CAINFO)")
    func caBundle() async throws {
        let server = try ScriptedHTTPServer(greeting: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") { _, _ in .close }
        defer { server.stop() }
        let missing = "/nonexistent/paypulse-test-ca-\(server.port).pem"
        let configured = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(2), caBundlePath: missing))
        let request = HTTPRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/")
        var error: TransportError?
        do { _ = try await configured.execute(request) } catch let caught as TransportError { error = caught }
        // libcurl names the CA file it could not load: only the configured path can appear.
        #expect(error == .tlsFailure)
        #expect(error?.detail.contains(missing) == true)
        #expect(await failure(of: request)?.detail.contains(missing) == false)
    }

    @Test("an unsupported scheme is an invalid URL")
    func invalidURL() async throws {
        #expect(await failure(of: HTTPRequest(method: "GET", url: "ftp://127.0.0.1/")) == .invalidURL)
    }

    @Test("libcurl's DNS and TLS codes map to their kinds")
    func mapping() {
        // DNS is mapped from libcurl's code: the test machine must not send lookups anywhere.
        #expect(TransportError.from(curlCode: CURLE_COULDNT_RESOLVE_HOST, detail: "", exceededLimit: false) == .dnsFailure)
        #expect(TransportError.from(curlCode: CURLE_PEER_FAILED_VERIFICATION, detail: "", exceededLimit: false) == .tlsFailure)
        #expect(TransportError.from(curlCode: CURLE_WRITE_ERROR, detail: "", exceededLimit: true) == .responseTooLarge)
        #expect(TransportError.from(curlCode: CURLE_RECV_ERROR, detail: "", exceededLimit: false) == .connectionReset)
    }
}
