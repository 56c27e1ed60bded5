import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a program found on `PATH` and waits for it, without full Foundation's `Process`.
enum ChildProcess {
    /// Runs `arguments` (the first is the program) and returns its exit status, or `nil`
    /// when it could not be started or did not exit normally.
    static func run(_ arguments: [String]) async -> Int32? {
        await withCheckedContinuation { continuation in
            // waitpid blocks: keep it off the concurrency pool.
            DispatchQueue.global().async { continuation.resume(returning: runBlocking(arguments)) }
        }
    }

    /// Whether `python3` with its `sqlite3` module can be started (the cross-process test
    /// uses it as the other writer).
    static let hasPythonSQLite: Bool = runBlocking(["python3", "-c", "import sqlite3"]) == 0

    private static func runBlocking(_ arguments: [String]) -> Int32? {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        guard posix_spawnp(&pid, arguments[0], nil, nil, &argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return nil }
        }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        guard status & 0x7F == 0 else { return nil }
        return (status >> 8) & 0xFF
    }
}
