import Foundation

/// A Python fixture script of `Tests/Fixtures` run once: a JSON request on its standard
/// input, a JSON answer on its standard output (PyJWT's signer and verifier).
enum PythonScript {
    /// Runs `script` with `request`; its answer, or `nil` with what it wrote on standard
    /// error when it fails.
    static func run(_ script: URL, request: Any) throws -> (answer: [String: Any]?, complaint: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        // The scripts read all of their input before they write, so this order cannot block.
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile(), complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = process.terminationStatus == 0 ? (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] : nil
        return (object, String(decoding: complaint, as: UTF8.self))
    }
}
