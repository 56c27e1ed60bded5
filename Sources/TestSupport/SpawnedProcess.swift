#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Runs an executable with its standard streams on files and waits for it, with
/// `posix_spawn` and `waitpid` rather than Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) reads `/proc/self/fd` with a
/// `d_name` copy that over-reads past glibc's buffer and now and then crashes a test
/// process that starts many children (swift-corelibs-foundation PR 5472). The wait status
/// also tells an exit from a kill by a signal. Blocks the calling thread.
package enum SpawnedProcess {
    /// How the process ended.
    package struct Exit: Sendable, Equatable {
        /// The exit status, or `nil` when a signal killed it.
        package var status: Int32?
        /// The signal that killed it, if one did.
        package var signal: Int32?
    }

    /// Why the process could not be run.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed, with its errno.
        package let description: String
        /// The child had ended, and is reaped: it cannot be asked or waited for again.
        package var childEnded = false
    }

    /// Runs `binary` with exactly `environment`, reading `stdin` and writing `stdout` and
    /// `stderr` (files, created or truncated), and waits for it.
    /// - Throws: ``Failure`` when it cannot be started or waited for.
    package static func run(_ binary: String, environment: [String: String], stdin: String, stdout: String, stderr: String) throws -> Exit {
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

    /// ``run(_:environment:stdin:stdout:stderr:)`` waiting on a thread of its own: a test that
    /// blocks in `waitpid` on one of the concurrency runtime's threads (one per CPU) stops
    /// every other test from running meanwhile, so on two cores two such waits stall the suite.
    package static func run(
        _ binary: String, environment: [String: String], stdin: String, stdout: String, stderr: String
    ) async throws -> Exit {
        try await offThePool { try run(binary, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr) }
    }

    /// `body`'s result, computed on a thread of its own rather than the caller's (for a call
    /// that blocks, such as a wait for a child).
    package static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

extension SpawnedProcess {
    /// A child started with `posix_spawnp` that runs while this process goes on: a server
    /// (moto and its watcher) or a command run under one (`with-moto`).
    package struct Running: Sendable {
        /// The child's process id.
        package let pid: pid_t

        /// Starts `arguments[0]` (looked up on `PATH` when it has no slash) with `environment`.
        /// Standard streams are inherited unless given: `stdin` is a descriptor to read from
        /// (it becomes the child's 0), `discardOutput` sends 1 and 2 to `/dev/null`,
        /// `stdoutPath` and `stderrPath` send them to files (created or truncated). Other
        /// descriptors are inherited unless close-on-exec (Swift does not import
        /// `posix_spawn_file_actions_addclosefrom_np`), so a descriptor no child may keep,
        /// such as a server's lifeline, must be opened close-on-exec.
        /// - Throws: ``SpawnedProcess/Failure`` when it cannot be started.
        package static func start(
            _ arguments: [String], environment: [String: String], stdin: Int32? = nil, discardOutput: Bool = false,
            stdoutPath: String? = nil, stderrPath: String? = nil
        ) throws -> Running {
            precondition(!arguments.isEmpty, "no command")
            #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?  // Darwin: an opaque pointer the init sets
            #else
            var actions = posix_spawn_file_actions_t()
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
            if discardOutput {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
            }
            for (descriptor, path) in [(Int32(1), stdoutPath), (Int32(2), stderrPath)] {
                guard let path else { continue }
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }

            // This process's threads block signals (the Swift runtime's), and a spawned child
            // inherits the mask: without this, a command run here ignored SIGTERM and Ctrl-C.
            #if canImport(Darwin)
            var attributes: posix_spawnattr_t?
            #else
            var attributes = posix_spawnattr_t()
            #endif
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t(), all = sigset_t()
            sigemptyset(&none)
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }

            var pid = pid_t()
            let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
            guard spawned == 0 else { throw Failure(description: "posix_spawnp \(arguments[0]) failed: errno \(spawned)") }
            return Running(pid: pid)
        }

        /// How the child ended, or `nil` while it runs. Reaps it once it has ended: ask again
        /// afterwards and the answer is a ``SpawnedProcess/Failure``.
        /// - Throws: ``SpawnedProcess/Failure`` when it cannot be asked.
        package func exitIfEnded() throws -> Exit? {
            try waitForChild(options: WNOHANG)
        }

        /// The first text matching `pattern` (a regular expression) that the child writes to
        /// the file at `path`: what a server that binds port 0 prints about where it listens.
        /// Polls with `Task.sleep`, so a wait of many seconds holds no thread of the
        /// concurrency pool (a blocked pool thread stalls every other suite's tasks).
        /// - Throws: ``SpawnedProcess/Failure`` when the child ends first (with how it ended;
        ///   ``SpawnedProcess/Failure/childEnded``), or when `limit` passes (the child is then
        ///   stopped and reaped). Either way the child is reaped: do not wait for it again.
        package func awaitOutput(matching pattern: String, in path: String, within limit: Duration) async throws -> String {
            let deadline = ContinuousClock.now + limit
            while true {
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                if let range = text.range(of: pattern, options: .regularExpression) { return String(text[range]) }
                if let exit = try exitIfEnded() {
                    // It may have printed and ended between the read above and this check.
                    let last = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                    if let range = last.range(of: pattern, options: .regularExpression) { return String(last[range]) }
                    throw Failure(description: "\(pid) ended before printing /\(pattern)/ (\(exit))", childEnded: true)
                }
                guard ContinuousClock.now < deadline else {
                    terminate()
                    _ = try? wait()
                    throw Failure(description: "\(pid) printed nothing matching /\(pattern)/ within \(limit)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        /// Asks the child to end (SIGTERM); ``wait()`` then reaps it.
        package func terminate() {
            kill(pid, SIGTERM)
        }

        /// Waits until the child ends, and says how.
        /// - Throws: ``SpawnedProcess/Failure`` when it cannot be waited for.
        package func wait() throws -> Exit {
            guard let exit = try waitForChild(options: 0) else { throw Failure(description: "waitpid \(pid) returned no status") }
            return exit
        }

        private func waitForChild(options: Int32) throws -> Exit? {
            var status: Int32 = 0
            while true {
                let reaped = waitpid(pid, &status, options)
                if reaped == pid { return Exit(waitStatus: status) }
                if reaped == 0 { return nil }
                guard errno == EINTR else { throw Failure(description: "waitpid \(pid) failed: errno \(errno)") }
            }
        }
    }
}

extension SpawnedProcess.Exit {
    /// Decodes a `waitpid` status. WIFEXITED / WTERMSIG are macros Swift does not import:
    /// the low 7 bits are the signal, the next byte the exit status.
    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self.init(status: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal)
    }
}
