#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulsePorts

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the state directory and the database file with owner-only permissions
/// before SQLite touches them.
///
/// The umask is process-wide and other threads may be creating files, so it is left alone:
/// permissions are set with `chmod` right after creation instead. SQLite gives the `-wal`
/// and `-shm` files the mode of the database file, so 0600 on the file covers them.
enum StateDirectory {
    /// Mode of the state directory: owner only.
    static let directoryMode: mode_t = 0o700
    /// Mode of the database file (and, through SQLite, its `-wal` and `-shm` files).
    static let fileMode: mode_t = 0o600

    /// Creates `path` as 0700 (and missing parents with default modes). An existing
    /// directory keeps its mode: it may be shared (`/tmp`), so it is only reported when
    /// others can enter it.
    /// - Throws: ``StoreError/unavailable`` when the directory cannot be created.
    static func prepare(_ path: String, logger: Logger) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw StoreError.unavailable.with(message: "state path \(path) is not a directory")
            }
            if info.st_mode & 0o077 != 0 {
                logger.warning("state directory is accessible to other users", metadata: ["path": "\(path)"])
            }
            return
        }
        let parent = parentDirectory(of: path)
        do {
            if !parent.isEmpty {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
        } catch {
            throw StoreError.unavailable.with(message: "cannot create \(parent): \(error)")
        }
        // mkdir with 0700: the umask can only remove bits, so the directory is never
        // open to others, not even for a moment; chmod then sets exactly 0700.
        guard mkdir(path, directoryMode) == 0 || errno == EEXIST else {
            throw StoreError.unavailable.with(message: "cannot create state directory \(path): \(errorText())")
        }
        try changeMode(of: path, to: directoryMode)
    }

    /// Creates the database file as 0600 if it does not exist, and tightens it if it does.
    /// - Throws: ``StoreError/unavailable`` when the file cannot be created or changed.
    static func prepareFile(_ path: String) throws {
        // O_CREAT with 0600: never wider than owner-only, whatever the umask.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else {
            throw StoreError.unavailable.with(message: "cannot create \(path): \(errorText())")
        }
        close(descriptor)
        if try mode(of: path) != fileMode {
            try changeMode(of: path, to: fileMode)
        }
    }

    /// The permission bits of `path`.
    static func mode(of path: String) throws -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StoreError.unavailable.with(message: "cannot stat \(path): \(errorText())")
        }
        return info.st_mode & 0o777
    }

    private static func changeMode(of path: String, to mode: mode_t) throws {
        guard chmod(path, mode) == 0 else {
            throw StoreError.unavailable.with(message: "cannot chmod \(path): \(errorText())")
        }
    }

    /// `path` without its last component ("" when there is no parent to create).
    private static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return String(trimmed[..<slash])
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
