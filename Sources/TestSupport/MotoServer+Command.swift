import Foundation

extension MotoServer {
    /// Runs a command with a moto_server it names to it as `PAYPULSE_TEST_MOTO_ENDPOINT`, and
    /// answers the command's exit status (128 + the signal when one killed it). The server is
    /// the one ``shared()`` would use: the caller's `PAYPULSE_TEST_MOTO_ENDPOINT` when set,
    /// else one launched here, which ends with this process however it ends.
    ///
    /// The `with-moto` executable (and `scripts/with-moto.sh`, which builds and runs it) is
    /// this function, so the suites and the make targets launch moto one way.
    /// - Parameter command: the program (looked up on `PATH`) and its arguments.
    /// - Throws: ``MotoServerError`` when no server starts, ``SpawnedProcess/Failure`` when
    ///   the command cannot be run.
    public static func run(command: [String]) async throws -> Int32 {
        let server = try await shared()
        var environment = ProcessInfo.processInfo.environment
        if environment["PAYPULSE_TEST_MOTO_ENDPOINT", default: ""].isEmpty {
            environment["PAYPULSE_TEST_MOTO_ENDPOINT"] = server.endpoint
            FileHandle.standardError.write(Data("with-moto: moto_server on \(server.endpoint)\n".utf8))
        }
        let exit = try SpawnedProcess.Running.start(command, environment: environment).wait()
        // Keeps the server (and so moto) alive until the command has ended.
        return withExtendedLifetime(server) { exit.status ?? 128 + (exit.signal ?? 0) }
    }
}
