import Foundation
import PayPulseTransport
#if canImport(Glibc)
import Glibc
#endif

/// A `moto_server` on 127.0.0.1: the real peer for the AWS APIs in tests.
///
/// ``shared()`` uses the server named by `PAYPULSE_TEST_MOTO_ENDPOINT` (what `.ci/run` and
/// `make test` start) or launches one for this test process. ``launchPrivate()`` always
/// launches a new one, for suites that change server-wide state such as signature checks.
public final class MotoServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let endpoint: String
    // The watcher process and the pipe whose closing ends it (and moto).
    private let process: Process?
    private let lifeline: Pipe?

    private init(endpoint: String, process: Process? = nil, lifeline: Pipe? = nil) {
        self.endpoint = endpoint
        self.process = process
        self.lifeline = lifeline
    }

    deinit { try? lifeline?.fileHandleForWriting.close() }

    private static let sharedServer = Task<MotoServer, any Error> {
        if let endpoint = ProcessInfo.processInfo.environment["PAYPULSE_TEST_MOTO_ENDPOINT"], !endpoint.isEmpty {
            return MotoServer(endpoint: endpoint)
        }
        return try await launchPrivate()
    }

    /// The server shared by the whole test process.
    public static func shared() async throws -> MotoServer { try await sharedServer.value }

    /// Launches a new `moto_server` on a free port and waits until it answers. The server
    /// exits with the test process even if that process is killed.
    public static func launchPrivate() async throws -> MotoServer {
        let port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The watcher waits for end-of-file on its standard input, whose write end only this
        // process holds: when this process ends, however it ends, the kernel closes it and
        // the watcher kills moto. SIGKILL, since children inherit a blocked signal mask.
        // No output is inherited, so `swift test` never waits on a pipe moto keeps open.
        process.arguments = [
            "-c",
            "if command -v moto_server >/dev/null; then set -- moto_server; else set -- python3 -m moto.server; fi; "
                + "\"$@\" -H 127.0.0.1 -p \(port) </dev/null >/dev/null 2>&1 & m=$!; cat >/dev/null; kill -9 $m 2>/dev/null",
        ]
        let lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let endpoint = "http://127.0.0.1:\(port)"
        let transport = CurlHTTPClient()
        for _ in 0..<300 {
            if let response = try? await transport.execute(HTTPRequest(method: "GET", url: endpoint + "/moto-api/", timeout: .seconds(1))),
               response.status == 200 {
                return MotoServer(endpoint: endpoint, process: process, lifeline: lifeline)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try? lifeline.fileHandleForWriting.close()
        throw MotoServerError(message: "moto_server did not start on port \(port) within 30 s; is moto[server] installed (pip install \"moto[server]\")?")
    }

    /// Asks the kernel for a free TCP port on 127.0.0.1.
    /// A port on 127.0.0.1 that nothing listens on (right now).
    public static func freeLoopbackPortForTests() throws -> Int { try freeLoopbackPort() }

    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw MotoServerError(message: "no free loopback port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why a moto server could not be used.
public struct MotoServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let message: String
    public var description: String { message }
}
