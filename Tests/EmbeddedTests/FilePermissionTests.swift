import PayPulseEmbedded
import PayPulsePorts
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("State directory and file permissions")
struct FilePermissionTests {
    @Test func directoryIs0700AndDatabaseFilesAre0600() async throws {
        try await withStateDirectory { base in
            let directory = base + "/nested/state"
            let database = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            let store = EmbeddedSecretStore(database: database, logger: quietLogger)
            // A write makes SQLite create the -wal and -shm files.
            _ = try await store.createSecret(name: "perm", value: "v", tags: [:], clientRequestToken: newToken())

            #expect(database.path == directory + "/paypulse.sqlite3")
            #expect(permissions(of: directory) == 0o700)
            #expect(permissions(of: database.path) == 0o600)
            #expect(permissions(of: database.path + "-wal") == 0o600)
            #expect(permissions(of: database.path + "-shm") == 0o600)
        }
    }

    @Test func aLooseExistingFileIsTightened() async throws {
        try await withStateDirectory { directory in
            #expect(mkdir(directory, 0o700) == 0)
            let path = directory + "/" + EmbeddedDatabase.fileName
            let descriptor = open(path, O_CREAT | O_WRONLY, 0o644)
            #expect(descriptor >= 0)
            close(descriptor)
            #expect(chmod(path, 0o644) == 0)

            _ = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            #expect(permissions(of: path) == 0o600)
        }
    }

    @Test func aFileThatIsNotADatabaseIsReportedCorrupt() async throws {
        try await withStateDirectory { directory in
            #expect(mkdir(directory, 0o700) == 0)
            let path = directory + "/" + EmbeddedDatabase.fileName
            let descriptor = open(path, O_CREAT | O_WRONLY, 0o600)
            let junk = Array(repeating: UInt8(ascii: "x"), count: 4096)
            #expect(write(descriptor, junk, junk.count) == junk.count)
            close(descriptor)

            #expect(throws: StoreError.corrupt) {
                _ = try EmbeddedDatabase(stateDirectory: directory, logger: quietLogger)
            }
        }
    }
}
