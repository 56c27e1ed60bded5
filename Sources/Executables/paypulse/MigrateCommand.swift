import ArgumentParser
import Dispatch
import Foundation
import PayPulseAWS
import PayPulseApp
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `paypulse migrate --from secretsmanager --to dynamodb`: copies every grant between the
/// two AWS token stores with ``GrantMigration`` and prints its report as JSON. Run with
/// `PAYPULSE_STORE=dynamodb` (the table and KMS key come from its variables); `--from
/// dynamodb --to secretsmanager` copies back.
///
/// While it runs, a progress line goes to standard error every `--progress-every` seconds,
/// with the cursor that `--resume-from` takes; SIGINT or SIGTERM lets the copies in flight
/// finish, prints the report so far and that cursor, and exits 130 or 143 (a second signal
/// exits at once, after printing the cursor).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy every grant between Secrets Manager and the DynamoDB token table, idempotently, verifying each copy.",
        discussion: """
            Run before switching PAYPULSE_STORE, and once more right before the switch; never once writers use the target. \
            Progress goes to standard error; an interrupted run (Ctrl-C, SIGTERM) prints the cursor that --resume-from takes.
            """
    )

    enum Store: String, ExpressibleByArgument, CaseIterable {
        case secretsmanager, dynamodb

        /// The default pace of writes into this store: half Secrets Manager's shared 50/s,
        /// leaving the rest to the live functions; DynamoDB on demand takes far more.
        var defaultWritesPerSecond: Int { self == .secretsmanager ? 25 : 200 }
    }

    @Option(help: "Where the grants are now: secretsmanager or dynamodb.")
    var from: Store

    @Option(help: "Where they go: dynamodb or secretsmanager.")
    var to: Store

    @Option(help: "Only the users whose id starts with this.")
    var userPrefix = ""

    @Option(help: "Grants copied at once (1 to 64).")
    var concurrency = 8

    @Option(help: "Write calls per second into the target (default 25 into Secrets Manager, 200 into DynamoDB).")
    var writesPerSecond: Int?

    @Option(help: ArgumentHelp("Seconds between progress lines on standard error.", valueName: "seconds"))
    var progressEvery = 10.0

    @Option(help: ArgumentHelp("Continue an interrupted run from the cursor it printed.", valueName: "cursor"))
    var resumeFrom: String?

    func validate() throws {
        guard from != to else { throw ValidationError("--from and --to must differ") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 64") }
        if let writesPerSecond, !(1...10_000).contains(writesPerSecond) {
            throw ValidationError("--writes-per-second must be 1 to 10000")
        }
        guard progressEvery.isFinite, (0.01...3600).contains(progressEvery) else {
            throw ValidationError("--progress-every must be 0.01 to 3600 seconds")
        }
        if let resumeFrom { _ = try resumePosition(resumeFrom) }
    }

    func run() async throws {
        let start = try resumeFrom.flatMap(resumePosition)
        let context = try await CLIContext.load()
        guard context.configuration.store == .dynamodb else {
            throw CLIError("migrate needs PAYPULSE_STORE=dynamodb (with TOKENS_TABLE and PAYPULSE_KMS_KEY_ID) to reach both stores")
        }
        let secretsManager: any GrantStore = SecretsManagerGrantStore(try context.backends.secrets)
        let dynamoDB = try context.backends.grants
        // A deletion carried over gets a disconnect's window (DISCONNECT_RECOVERY_DAYS).
        let window = context.configuration.disconnectRecoveryDays
        let pace = writesPerSecond ?? to.defaultWritesPerSecond
        let migration = from == .secretsmanager
            ? GrantMigration(from: secretsManager, to: dynamoDB, userPrefix: userPrefix, concurrency: concurrency, recoveryWindowDays: window, writesPerSecond: pace)
            : GrantMigration(from: dynamoDB, to: secretsManager, userPrefix: userPrefix, concurrency: concurrency, recoveryWindowDays: window, writesPerSecond: pace)

        let progress = MigrationProgress()
        let cursorText = { @Sendable [self] (position: String?) in resumeCursor(position) }
        let interrupts = Interrupts(progress: progress, cursorText: cursorText)
        let ticker = Task {
            while (try? await Task.sleep(for: .seconds(progressEvery))) != nil {
                let snapshot = progress.snapshot
                printToStandardError("migrate: \(snapshot.line); resume with --resume-from \(cursorText(snapshot.resumeCursor))")
            }
        }
        defer { ticker.cancel() }
        let report: GrantMigration.Report
        do {
            report = try await migration.run(resumingFrom: start, progress: progress)
        } catch let interrupted as GrantMigration.Interrupted {
            print(try JSONCoding.string(interrupted.report))
            printToStandardError(
                "migrate: interrupted, \(progress.snapshot.line); continue with --resume-from \(cursorText(interrupted.resumeCursor))"
            )
            throw ExitCode(128 + interrupts.received)
        }
        withExtendedLifetime(interrupts) {}
        printToStandardError("migrate: \(progress.snapshot.line)")
        print(try JSONCoding.string(report))
        if !report.complete { throw ExitCode.failure }
    }

    // MARK: the resume cursor

    /// The cursor `--resume-from` takes: `from-to.PREFIX.POSITION`, the user prefix and the
    /// source's listing position in base64url (an empty position is the start), so a cursor of
    /// another run (other stores or prefix) is refused instead of skipping grants.
    private func resumeCursor(_ position: String?) -> String {
        "\(from.rawValue)-\(to.rawValue).\(Self.base64URL(userPrefix)).\(Self.base64URL(position ?? ""))"
    }

    /// The listing position in a `--resume-from` cursor (`nil`: the start).
    /// - Throws: `ValidationError` when the cursor is damaged or another run's.
    private func resumePosition(_ cursor: String) throws -> String? {
        let parts = cursor.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let prefix = Self.fromBase64URL(parts[1]), let position = Self.fromBase64URL(parts[2]) else {
            throw ValidationError("--resume-from: not a cursor that migrate printed")
        }
        guard parts[0] == "\(from.rawValue)-\(to.rawValue)", prefix == userPrefix else {
            throw ValidationError(
                "--resume-from: this cursor is of another run (\(parts[0]), user prefix \"\(prefix)\"); give the same --from, --to and --user-prefix"
            )
        }
        return position.isEmpty ? nil : position
    }

    private static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func fromBase64URL(_ text: String) -> String? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { String(data: $0, encoding: .utf8) }
    }
}

/// SIGINT and SIGTERM during a migration: the first asks it to stop (the copies in flight
/// finish); a second exits at once, printing where to resume (copies are idempotent, so a
/// page redone is safe).
private final class Interrupts {
    private let sources: [any DispatchSourceSignal]
    private let first: FirstSignal

    /// The signal received first (SIGINT unless one came).
    var received: Int32 { first.number.withLock { $0 == 0 ? SIGINT : $0 } }

    /// The first signal's number, 0 before any.
    private final class FirstSignal: Sendable {
        let number = Mutex<Int32>(0)
    }

    init(progress: MigrationProgress, cursorText: @escaping @Sendable (String?) -> String) {
        let first = FirstSignal()
        self.first = first
        sources = [SIGINT, SIGTERM].map { number in
            // The default action would end the process before the run can stop cleanly.
            _ = signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let isFirst = first.number.withLock { received in
                    guard received == 0 else { return false }
                    received = number
                    return true
                }
                if isFirst {
                    printToStandardError("migrate: stopping after the copies in flight (again to exit at once)")
                    progress.stop()
                } else {
                    printToStandardError("migrate: exiting; continue with --resume-from \(cursorText(progress.snapshot.resumeCursor))")
                    exit(128 + number)
                }
            }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }
}
