import Foundation
import PayPulseAWS
import PayPulsePorts
import PayPulseDomain
import PayPulseTestSupport
import Testing

/// `paypulse setup --store dynamodb` and `paypulse migrate` through the built CLI, on a
/// private moto_server: the token table comes out as the store expects it (twice: the second
/// run is a no-op), and a migration copies Secrets Manager's grants into it.
@Suite("paypulse setup and migrate for the DynamoDB token store")
struct StoreSetupCommandTests {
    @Test("setup creates the token table once; migrate copies the grants and verifies them")
    func setupThenMigrate() async throws {
        let server = try await MotoServer.launchPrivate()
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: server.endpoint))
        var environment = try await Self.environment(on: server, kms: kms, table: "setup-tokens")

        for _ in 0..<2 {
            let setup = try await FunctionProcess.cli(["setup", "--store", "dynamodb"], environment: environment)
            #expect(setup.status == 0, "\(setup.stderr)")
            #expect(setup.stdout.contains("token table setup-tokens"))
        }
        let source = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)))
        for index in 0..<5 {
            try await source.create("cli-\(index)", value: #"{"access_token":"ya29.cli-\#(index)"}"#, attributes: ["paypulse:status": "active"])
        }

        environment["PAYPULSE_STORE"] = "dynamodb"
        let migrate = try await FunctionProcess.cli(["migrate", "--from", "secretsmanager", "--to", "dynamodb"], environment: environment)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(migrate.stdout.utf8)) as? [String: Any]
        #expect(report?["copied"] as? Int == 5)
        #expect(report?["verified"] as? Int == 5)
        #expect(!migrate.stdout.contains("ya29"), "the report names no token")

        let target = DynamoDBGrantStore(
            client: try AWSTestClients.dynamoDB(endpoint: server.endpoint), table: "setup-tokens",
            cipher: EnvelopeCipher(keys: DataKeyCache(service: kms, keyID: try #require(environment["PAYPULSE_KMS_KEY_ID"]))),
            due: .defaultRefresh
        )
        #expect(try await target.read("cli-3").value == #"{"access_token":"ya29.cli-3"}"#)
        withExtendedLifetime(server) {}
    }

    @Test("migrate prints progress lines on stderr with a resume cursor, resumes from it, and refuses a cursor of another run")
    func progressAndResume() async throws {
        let (server, setUp) = try await movingToTable("progress-tokens")
        var environment = setUp
        let source = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)))
        for index in 0..<20 {
            try await source.create("pro-\(index)", value: #"{"access_token":"ya29.pro-\#(index)"}"#, attributes: ["paypulse:status": "active"])
        }
        environment["PAYPULSE_STORE"] = "dynamodb"

        // 20 creates at 20 writes/s take about a second: several lines at 0.1 s apart.
        let migrate = try await FunctionProcess.cli(
            ["migrate", "--from", "secretsmanager", "--to", "dynamodb", "--progress-every", "0.1", "--writes-per-second", "20"], environment: environment
        )
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let lines = migrate.stderr.split(separator: "\n").filter { $0.hasPrefix("migrate: ") && $0.contains(" listed done") }
        #expect(lines.count >= 3, "\(migrate.stderr)")
        #expect(lines.contains { $0.contains("grants/s") && $0.contains("left") && $0.contains("--resume-from secretsmanager-dynamodb.") })
        #expect(!migrate.stderr.contains("ya29"), "no token in a progress line")
        let report = try JSONSerialization.jsonObject(with: Data(migrate.stdout.utf8)) as? [String: Any]
        #expect(report?["copied"] as? Int == 20 && report?["verified"] as? Int == 20)

        // A cursor a line printed resumes the run; one of another run or a damaged one is refused.
        let cursor = try #require(lines.first.flatMap { $0.components(separatedBy: "--resume-from ").last })
        let resumed = try await FunctionProcess.cli(["migrate", "--from", "secretsmanager", "--to", "dynamodb", "--resume-from", cursor], environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let foreign = try await FunctionProcess.cli(["migrate", "--from", "dynamodb", "--to", "secretsmanager", "--resume-from", cursor], environment: environment)
        #expect(foreign.status != 0 && foreign.stderr.contains("--resume-from: this cursor is of another run"), "\(foreign.stderr)")
        let damaged = try await FunctionProcess.cli(["migrate", "--from", "secretsmanager", "--to", "dynamodb", "--resume-from", "x.y!"], environment: environment)
        #expect(damaged.status != 0 && damaged.stderr.contains("--resume-from: not a cursor that migrate printed"), "\(damaged.stderr)")
        withExtendedLifetime(server) {}
    }

    @Test("Ctrl-C stops migrate with the report so far and a cursor; resuming from it finishes the copy")
    func interruptedAndResumed() async throws {
        let (server, setUp) = try await movingToTable("interrupted-tokens")
        var environment = setUp
        let source = SecretsManagerGrantStore(AWSSecretStore(client: try AWSTestClients.secretsManager(endpoint: server.endpoint)))
        let grants = 30
        for index in 0..<grants {
            try await source.create("int-\(index)", value: #"{"access_token":"ya29.int-\#(index)"}"#, attributes: ["paypulse:status": "active"])
        }
        environment["PAYPULSE_STORE"] = "dynamodb"

        // 30 creates at 3 writes/s take ten seconds: a SIGINT after the first progress line
        // lands mid-run however slow the machine.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("stdout").path, errors = scratch.appendingPathComponent("stderr").path
        let binary = FunctionProcess.binaryDirectory.appendingPathComponent("paypulse").path
        let running = try SpawnedProcess.Running.start(
            [binary, "migrate", "--from", "secretsmanager", "--to", "dynamodb", "--progress-every", "0.2", "--writes-per-second", "3", "--concurrency", "2"],
            environment: environment, stdoutPath: output, stderrPath: errors
        )
        let text = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        while !text(errors).contains("listed done"), try running.exitIfEnded() == nil { try await Task.sleep(for: .milliseconds(50)) }
        kill(running.pid, SIGINT)
        let exit = try running.wait()
        #expect(exit.status == 130, "\(text(errors))")
        let interruptedLine = try #require(text(errors).split(separator: "\n").last { $0.contains("migrate: interrupted") }, "\(text(errors))")
        let cursor = try #require(interruptedLine.components(separatedBy: "--resume-from ").last)
        let first = try JSONSerialization.jsonObject(with: Data(text(output).utf8)) as? [String: Any]
        let copiedFirst = try #require(first?["copied"] as? Int)
        #expect(copiedFirst > 0 && copiedFirst < grants, "interrupted after \(copiedFirst) of \(grants)")

        let resumed = try await FunctionProcess.cli(["migrate", "--from", "secretsmanager", "--to", "dynamodb", "--resume-from", cursor], environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let second = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
        // The resumed run starts at the cursor's page (everything before it was copied) and
        // finds the copies of that page made before the signal unchanged: each grant is
        // copied once over both runs, and a full run then finds every grant in place.
        #expect((second?["copied"] as? Int ?? 0) + copiedFirst == grants, "\(resumed.stdout)")
        let check = try await FunctionProcess.cli(["migrate", "--from", "secretsmanager", "--to", "dynamodb"], environment: environment)
        let final = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
        #expect(final?["unchanged"] as? Int == grants, "\(check.stdout)")
        withExtendedLifetime(server) {}
    }

    /// The CLI's environment for Secrets Manager on `server`, with a token table `table`
    /// and a new KMS key for it (`PAYPULSE_STORE=dynamodb` reaches both).
    private static func environment(on server: MotoServer, kms: KMSClient, table: String) async throws -> [String: String] {
        var environment = ReplayBackend.baseEnvironment()
        environment["PAYPULSE_STORE"] = "aws"
        environment["AWS_REGION"] = AWSTestClients.region
        environment["AWS_ACCESS_KEY_ID"] = AWSTestClients.motoCredentials.accessKeyID
        environment["AWS_SECRET_ACCESS_KEY"] = AWSTestClients.motoCredentials.secretAccessKey
        environment["AWS_ENDPOINT_URL"] = server.endpoint
        environment["TOKENS_TABLE"] = table
        environment["PAYPULSE_KMS_KEY_ID"] = try await kms.createKey()
        return environment
    }

    /// A private moto with the token table `table` set up through the CLI, and the CLI's
    /// environment for it (`PAYPULSE_STORE=aws` until the caller has seeded the secrets).
    private func movingToTable(_ table: String) async throws -> (MotoServer, [String: String]) {
        let server = try await MotoServer.launchPrivate()
        let kms = KMSClient(client: try AWSTestClients.jsonClient(.kms, endpoint: server.endpoint))
        let environment = try await Self.environment(on: server, kms: kms, table: table)
        let setup = try await FunctionProcess.cli(["setup", "--store", "dynamodb"], environment: environment)
        #expect(setup.status == 0)
        return (server, environment)
    }
}
