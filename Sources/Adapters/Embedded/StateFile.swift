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

/// A small file of the state directory beside the database, readable by its owner alone
/// (0600): the local issuer's private keys (`paypulse serve --issuer`), which another
/// process (`paypulse jwt`) reads.
package enum StateFile {
    /// Writes `bytes` as `name` in `directory` (created 0700 as for the store), replacing
    /// the file whole: a reader sees the old content or the new, never a part.
    ///
    /// The bytes go to a new file created 0600 (never wider, whatever the umask), which is
    /// then renamed over `name`.
    /// - Throws: ``StoreError/unavailable`` when the directory or the file cannot be written.
    package static func save(_ bytes: [UInt8], named name: String, in directory: String, logger: Logger) throws {
        try StateDirectory.prepare(directory, logger: logger)
        let path = directory + "/" + name, temporary = directory + "/." + name + "." + SecretVersionID.random().rawValue
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, StateDirectory.fileMode)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        var written = 0
        let complete = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return false }
                written += result
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard complete, rename(temporary, path) == 0 else {
            let error = failure("cannot write", path)
            unlink(temporary)
            throw error
        }
    }

    /// The content of `name` in `directory`, or `nil` when there is no such file.
    /// - Throws: ``StoreError/unavailable`` when it exists but cannot be read.
    package static func load(named name: String, in directory: String) throws -> [UInt8]? {
        let path = directory + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            guard access(path, F_OK) == 0 else { return nil }
            throw failure("cannot read", path)
        }
        return Array(data)
    }

    private static func failure(_ what: String, _ path: String) -> StoreError {
        StoreError.unavailable.with(message: "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
