import PayPulseEmbedded
import PayPulsePorts
import Testing

/// Several connections (and another process) writing one file: every compare-and-swap
/// either wins or reports a conflict, none is lost, and `SQLITE_BUSY` never surfaces.
@Suite("Concurrent writers on one file")
struct ConcurrentWriterTests {
    static let secret = "gmail/user/counter"

    /// Two stores, each with its own connection to the same file, holding a counter at 0.
    static func twoStores(in directory: String) async throws -> (EmbeddedSecretStore, EmbeddedSecretStore) {
        let first = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
        let second = try EmbeddedSecretStore(stateDirectory: directory, logger: quietLogger)
        _ = try await first.createSecret(name: secret, value: "0", tags: [:], clientRequestToken: newToken())
        return (first, second)
    }

    /// Reads the counter and swaps in counter + 1 until `times` swaps have won, retrying
    /// after each conflict, as the refresh job would.
    /// - Returns: the version each winning swap expected.
    static func increment(_ store: EmbeddedSecretStore, times: Int) async throws -> [SecretVersionID] {
        var won: [SecretVersionID] = []
        while won.count < times {
            let current = try await store.getSecretValue(name: secret, stage: .current)
            let next = try #require(Int(current.string)) + 1
            do {
                _ = try await store.replaceCurrent(
                    name: secret, expected: current.versionID, value: "\(next)")
                won.append(current.versionID)
            } catch let error as StoreError where error == .conflict {
                continue
            }
        }
        return won
    }

    /// Runs `workers` incrementing tasks spread over both stores.
    static func incrementConcurrently(
        _ stores: (EmbeddedSecretStore, EmbeddedSecretStore), workers: Int, times: Int
    ) async throws -> [SecretVersionID] {
        try await withThrowingTaskGroup(of: [SecretVersionID].self) { group in
            for worker in 0..<workers {
                let store = worker.isMultiple(of: 2) ? stores.0 : stores.1
                group.addTask { try await increment(store, times: times) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    @Test func noUpdateIsLostAndEachVersionIsSwappedOutOnce() async throws {
        try await withStateDirectory { directory in
            let stores = try await Self.twoStores(in: directory)
            let won = try await Self.incrementConcurrently(stores, workers: 16, times: 5)

            #expect(won.count == 80)
            #expect(Set(won).count == won.count, "two swaps won against the same expected version")
            #expect(try await stores.1.getSecretValue(name: Self.secret, stage: .current).string == "80")
        }
    }

    @Test func ofManySwapsFromOneVersionExactlyOneWins() async throws {
        try await withStateDirectory { directory in
            let (first, second) = try await Self.twoStores(in: directory)
            let expected = try #require(try await first.describeSecret(name: Self.secret).currentVersion)
            let wins = try await withThrowingTaskGroup(of: Int.self) { group in
                for attempt in 0..<24 {
                    let store = attempt.isMultiple(of: 2) ? first : second
                    group.addTask {
                        do {
                            _ = try await store.replaceCurrent(
                                name: Self.secret, expected: expected, value: "\(attempt)")
                            return 1
                        } catch let error as StoreError where error == .conflict {
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wins == 1)
            #expect(try await first.describeSecret(name: Self.secret).versionStages.count == 2)
        }
    }

    /// A second OS process (Python's sqlite3) holds the write lock again and again while
    /// both stores swap: the busy timeout and retries absorb it.
    @Test(.enabled(if: ChildProcess.hasPythonSQLite, "needs python3 with sqlite3"))
    func anotherProcessWritingTheFileDoesNotBreakSwaps() async throws {
        try await withStateDirectory { directory in
            let stores = try await Self.twoStores(in: directory)
            let users = try EmbeddedUserDirectory(stateDirectory: directory, logger: quietLogger)
            let script = """
                import sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)
                for i in range(40):
                    db.execute("BEGIN IMMEDIATE")
                    db.execute("INSERT INTO users VALUES (?, 'Py', 'py@example.com', '2024-01-01T00:00:00Z')", (f"py-{i}",))
                    time.sleep(0.02)
                    db.execute("COMMIT")
                """
            async let exitStatus = ChildProcess.run(["python3", "-c", script, directory + "/paypulse.sqlite3"])
            // Start swapping once the other process is writing.
            for _ in 0..<500 where try await users.user(id: "py-0") == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            let won = try await Self.incrementConcurrently(stores, workers: 8, times: 5)

            #expect(await exitStatus == 0)
            #expect(Set(won).count == 40)
            #expect(try await stores.0.getSecretValue(name: Self.secret, stage: .current).string == "40")
            #expect(try await users.user(id: "py-39")?.name == "Py")
        }
    }
}
