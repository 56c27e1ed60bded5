import Foundation

/// Where the tests find the package's built executables (`paypulse`, the functions).
package enum BuiltExecutables {
    /// `PAYPULSE_TEST_EXECUTABLES` when set (another build's folder, e.g. of the commit
    /// before a fix, to see a suite fail on it); else the folder beside the test runner
    /// when the executables are there, else this checkout's `.build/debug`.
    package static let directory: URL = {
        if let chosen = ProcessInfo.processInfo.environment["PAYPULSE_TEST_EXECUTABLES"], !chosen.isEmpty {
            return URL(fileURLWithPath: chosen, isDirectory: true)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: runner.appendingPathComponent("paypulse").path) { return runner }
        return repositoryRoot.appendingPathComponent(".build/debug")
    }()

    /// The root of this checkout.
    package static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
