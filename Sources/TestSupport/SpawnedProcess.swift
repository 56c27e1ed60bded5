import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an executable with its standard streams on files and waits for it, with
/// `posix_spawn` and `waitpid` rather than Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) reads `/proc/self/fd` with a
/// `d_name` copy that over-reads past glibc's buffer and now and then crashes a test
/// process that starts many children (swift-corelibs-foundation PR 5472). The wait status
/// also tells an exit from a kill by a signal. Blocks the calling thread.
public enum SpawnedProcess {
    /// How the process ended.
    public struct Exit: Sendable, Equatable {
        /// The exit status, or `nil` when a signal killed it.
        public var status: Int32?
        /// The signal that killed it, if one did.
        public var signal: Int32?
    }

    /// Why the process could not be run.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with its errno.
        public let description: String
    }

    /// Runs `binary` with exactly `environment`, reading `stdin` and writing `stdout` and
    /// `stderr` (files, created or truncated), and waits for it.
    /// - Throws: ``Failure`` when it cannot be started or waited for.
    public static func run(_ binary: String, environment: [String: String], stdin: String, stdout: String, stderr: String) throws -> Exit {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?  // Darwin: an opaque pointer the init sets
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(binary), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid = pid_t()
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(binary) failed: errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waitpid \(binary) failed: errno \(errno)") }
        }
        return Exit(waitStatus: status)
    }
}
