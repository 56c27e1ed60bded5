import Foundation
import PayPulseTestSupport
import Testing

@Suite("paypulse risc: the built CLI against the fake's RISC management API")
struct RISCCommandTests {
    /// What one run of `paypulse risc …` printed.
    struct Run {
        var status: Int32?
        var stdout: String
        var stderr: String
    }

    /// Runs the built `paypulse risc` with `arguments`, the API base pointed at `risc`'s fake.
    static func paypulse(_ arguments: [String], _ risc: RISCFixture) throws -> Run {
        let scratch = risc.keyFile.deletingLastPathComponent()
        let (out, err) = (scratch.appendingPathComponent("out").path, scratch.appendingPathComponent("err").path)
        let process = try SpawnedProcess.Running.start(
            [BuiltExecutables.directory.appendingPathComponent("paypulse").path, "risc"] + arguments,
            environment: ["GOOGLE_RISC_API": risc.fake.riscAPIBase, "PATH": "/usr/bin:/bin"], stdoutPath: out, stderrPath: err
        )
        let exit = try process.wait()
        return Run(status: exit.status, stdout: try String(contentsOfFile: out, encoding: .utf8), stderr: try String(contentsOfFile: err, encoding: .utf8))
    }

    @Test("register, status, disable, show and verify: each one call, printed readably")
    func manageTheStream() throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        let key = ["--service-account-key", risc.keyFile.path]

        let register = try Self.paypulse(["register", "--receiver", RISCFixture.receiver, "--events", "tokens-revoked", "token-revoked"] + key, risc)
        #expect(register.status == 0, "\(register.stderr)")
        #expect(register.stdout == "registered: Google pushes to \(RISCFixture.receiver)\nevents requested: tokens-revoked, token-revoked\n")
        #expect(risc.fake.risc.stream?.eventsRequested == [
            "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked", "https://schemas.openid.net/secevent/oauth/event-type/token-revoked",
        ])
        #expect(risc.fake.risc.requests.map(\.refusal) == [nil], "the fake verified the CLI's token")

        #expect(try Self.paypulse(["status"] + key, risc).stdout == "status: enabled\n")
        #expect(try Self.paypulse(["disable"] + key, risc).stdout == "status: disabled\n")
        #expect(risc.fake.risc.status == "disabled")
        let show = try Self.paypulse(["show"] + key, risc)
        #expect(show.stdout == """
            receiver: \(RISCFixture.receiver) (push)
            events requested: tokens-revoked, token-revoked
            events delivered: tokens-revoked, token-revoked
            audience: \(risc.fake.clientIDs.joined(separator: ", "))

            """)
        let verify = try Self.paypulse(["verify", "--state", "hello"] + key, risc)
        #expect(verify.status == 0 && verify.stdout.hasPrefix("verification requested: "))
        #expect(risc.fake.risc.verificationStates == ["hello"])
        #expect(risc.fake.risc.requests.map { "\($0.method) \($0.call) \($0.status)" } == [
            "POST stream:update 200", "GET stream/status 200", "POST stream/status:update 200", "GET stream 200", "POST stream:verify 200",
        ])
    }

    @Test("failures are one line on standard error and exit 1, never with key material")
    func failures() throws {
        let risc = try RISCFixture()
        defer { risc.stop() }
        var object = try risc.keyFileObject
        let privateKey = try #require(object["private_key"] as? String)
        object["client_email"] = nil
        let noEmail = try RISCFixture.write(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        object["client_email"] = risc.account.email
        object["private_key"] = "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n"
        let notAKey = try RISCFixture.write(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        defer { [noEmail, notAKey].forEach { try? FileManager.default.removeItem(at: $0.deletingLastPathComponent()) } }
        let register = ["register", "--receiver", RISCFixture.receiver, "--service-account-key"]

        let cases: [(arguments: [String], stderr: String)] = [
            (register + [noEmail.path], #"Error: \#(noEmail.path) is not a Google service-account key: "client_email" is missing"#),
            (register + [notAKey.path], #"Error: \#(notAKey.path) has a "private_key" that is not an RSA private key in PEM (2048 bits or more)"#),
            (["register", "--receiver", "http://api.example.com/events", "--service-account-key", risc.keyFile.path],
             "Error: register: the receiver must be an https:// URL on a domain authorized in the Google Cloud project (Google refuses anything else): http://api.example.com/events"),
            (["enable", "--service-account-key", risc.keyFile.path], "Error: enable: Google answered 404 NOT_FOUND: Requested entity was not found."),
        ]
        for entry in cases {
            let run = try Self.paypulse(entry.arguments, risc)
            #expect(run.status == 1 && run.stdout.isEmpty)
            #expect(run.stderr == entry.stderr + "\n")
            #expect(!run.stderr.contains("PRIVATE KEY") && !run.stderr.contains(privateKey.split(separator: "\n")[1]))
        }
        #expect(risc.fake.risc.requests.map(\.call) == ["stream/status:update"], "only the last case reached Google")

        let unknown = try Self.paypulse(["register", "--receiver", RISCFixture.receiver, "--events", "tokens", "--service-account-key", risc.keyFile.path], risc)
        #expect(unknown.status != 0 && unknown.stderr.contains("unknown event type 'tokens'"))
    }
}
