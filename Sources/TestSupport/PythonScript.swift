#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A Python fixture script of `Tests/Fixtures` run once: a JSON request on its standard
/// input, a JSON answer on its standard output (PyJWT's signer and verifier, boto3's view of
/// EventBridge and SQS).
enum PythonScript {
    /// Runs `script` with `request`; its answer, or `nil` with what it wrote on standard
    /// error when it fails.
    ///
    /// The streams are files, not pipes: a pipe's write end is inheritable until it is
    /// closed, and a server another suite spawned meanwhile (moto's watcher shell, seen in
    /// CI) kept the script's standard input open, so the script waited for its end forever.
    /// The request file is opened close-on-exec; the child opens its own output files.
    static func run(_ script: URL, request: Any) throws -> (answer: [String: Any]?, complaint: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("python-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("request.json"), output = directory.appendingPathComponent("answer.json")
        let errors = directory.appendingPathComponent("stderr.txt")
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        let descriptor = open(input.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SpawnedProcess.Failure(description: "open \(input.path) failed: errno \(errno)") }
        defer { close(descriptor) }
        let exit = try SpawnedProcess.Running.start(
            ["python3", script.path], environment: ProcessInfo.processInfo.environment, stdin: descriptor,
            stdoutPath: output.path, stderrPath: errors.path
        ).wait()
        let answer = (try? Data(contentsOf: output)) ?? Data(), complaint = (try? Data(contentsOf: errors)) ?? Data()
        let object = exit.status == 0 ? (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] : nil
        return (object, String(decoding: complaint, as: UTF8.self))
    }
}
