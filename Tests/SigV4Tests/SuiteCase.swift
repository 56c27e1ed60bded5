import PayPulseAWS
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One case folder of the aws-c-auth SigV4 suite, read from disk at test time.
///
/// The suite is the package's own test data, at `Tests/Fixtures/aws-sigv4-test-suite/v4`
/// (found from this file's path; its license and notice beside it), or wherever
/// `AWS_SIGV4_TEST_SUITE` points.
struct SuiteCase: Sendable, CustomTestStringConvertible {
    var name: String
    var context: SuiteContext
    var request: RawHTTPRequest
    var expectedCanonicalRequest: String
    var expectedStringToSign: String
    var expectedSignature: String
    var expectedSignedRequest: String

    var testDescription: String { name }

    /// Fewer cases than this means a broken or partial copy of the suite, not a pass.
    static let minimumCaseCount = 30

    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The suite folder: `$AWS_SIGV4_TEST_SUITE`, else the package's copy.
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["AWS_SIGV4_TEST_SUITE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let tests = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // SigV4Tests
            .deletingLastPathComponent()  // Tests
        return tests.appendingPathComponent("Fixtures/aws-sigv4-test-suite/v4")
    }

    /// Every case with a header-signing variant, sorted by name.
    /// - Throws: ``LoadError`` when the folder is missing, a case cannot be read, or there
    ///   are fewer than ``minimumCaseCount`` cases; the tests then fail instead of skipping.
    static func all() throws -> [SuiteCase] {
        let directory = directory
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw LoadError(description: "SigV4 suite not found at \(directory.path): \(error)")
        }
        let cases = try names.sorted()
            .filter { FileManager.default.fileExists(
                atPath: directory.appendingPathComponent("\($0)/header-signed-request.txt").path) }
            .map { try SuiteCase(name: $0, folder: directory.appendingPathComponent($0)) }
        guard cases.count >= minimumCaseCount else {
            throw LoadError(description: "SigV4 suite at \(directory.path) has \(cases.count) cases, "
                + "expected at least \(minimumCaseCount)")
        }
        return cases
    }

    init(name: String, folder: URL) throws {
        func read(_ file: String) throws -> [UInt8] {
            Array(try Data(contentsOf: folder.appendingPathComponent(file)))
        }
        func text(_ file: String) throws -> String {
            String(decoding: try read(file), as: UTF8.self)
        }
        self.name = name
        context = try JSONDecoder().decode(SuiteContext.self, from: Data(try read("context.json")))
        request = try RawHTTPRequest(parsing: try read("request.txt"))
        expectedCanonicalRequest = try text("header-canonical-request.txt")
        expectedStringToSign = try text("header-string-to-sign.txt")
        expectedSignature = try text("header-signature.txt")
        expectedSignedRequest = try text("header-signed-request.txt")
    }
}

/// A case's `context.json`.
struct SuiteContext: Sendable, Decodable {
    struct Credentials: Sendable, Decodable {
        var accessKeyID: String
        var secretAccessKey: String
        var token: String?

        enum CodingKeys: String, CodingKey {
            case accessKeyID = "access_key_id"
            case secretAccessKey = "secret_access_key"
            case token
        }
    }

    var credentials: Credentials
    var region: String
    var service: String
    /// ISO 8601 in UTC, e.g. `2015-08-30T12:36:00Z`.
    var timestamp: String
    var normalize: Bool
    var signBody: Bool
    var omitSessionToken: Bool?

    enum CodingKeys: String, CodingKey {
        case credentials, region, service, timestamp, normalize
        case signBody = "sign_body"
        case omitSessionToken = "omit_session_token"
    }

    var signer: SigV4Signer {
        SigV4Signer(
            credentials: AWSCredentials(
                accessKeyID: credentials.accessKeyID,
                secretAccessKey: credentials.secretAccessKey,
                sessionToken: credentials.token
            ),
            region: region,
            service: service
        )
    }

    var options: SigV4Options {
        SigV4Options(
            normalizePath: normalize, signBody: signBody, omitSessionToken: omitSessionToken ?? false
        )
    }

    func date() throws -> Date {
        try Date(timestamp, strategy: .iso8601)
    }
}
