import ArgumentParser
import Foundation
import PayPulseFakeGoogle
import Synchronization

/// `paypulse fake-google`: the stand-in for Google's token and revoke endpoints alone, on a
/// free loopback port, for proofs that run the functions as separate processes (the
/// bundle proofs put a TLS relay in front of it). It knows the grants of a file such as
/// `events/manifest.json` and answers as `paypulse serve --fake-google` does.
struct FakeGoogleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-google",
        abstract: "Serve the stand-in for Google's token and revoke endpoints on a loopback port.",
        discussion: """
            Listens on a free 127.0.0.1 port and writes it to --port-file once listening. Each request appends one \
            line "METHOD PATH field,names" to --log (the form's field names, never their values: they are tokens). \
            Runs until it is stopped.
            """
    )

    @Option(help: "A JSON file of grants (a list, or an object with google_grants such as events/manifest.json).")
    var grants: String = "events/manifest.json"
    @Option(help: "An OAuth client ID the stand-in accepts; repeat it for several (the first is the one grants are issued to unless they say).")
    var clientID: [String]
    @Option(help: "Where to write the port, once listening.") var portFile: String
    @Option(help: "Where to append one line per request.") var log: String?

    func validate() throws {
        guard !clientID.isEmpty else { throw ValidationError("give at least one --client-id") }
    }

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: grants) else { throw CLIError("cannot read \(grants)") }
        let endpoints = FakeGoogleEndpoints(clientIDs: clientID)
        try FakeGoogleGrantSpec.list(fromJSON: data).forEach(endpoints.addGrant)
        let requestLog = try log.map(RequestLog.init(path:))
        let server = try ScriptedHTTPServer { _, request in
            requestLog?.append(Self.logLine(request))
            let answer = endpoints.answer(method: request.method, target: request.target, headers: request.headers, body: request.body)
            return .respond(status: answer.status, headers: answer.headers, body: answer.body)
        }
        // Renamed into place once listening, so a reader never sees a half-written port.
        try String(server.port).write(toFile: portFile + ".tmp", atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: portFile + ".tmp", toPath: portFile)
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    /// "POST /token client_id,grant_type,refresh_token": the method, the path, and the
    /// sorted field names of a form body.
    static func logLine(_ request: ScriptedHTTPServer.Request) -> String {
        let path = request.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        let isForm = request.headers["content-type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        let fields = isForm
            ? String(decoding: request.body, as: UTF8.self).split(separator: "&").map { String($0.split(separator: "=", maxSplits: 1)[0]) }
            : []
        return "\(request.method) \(path) \(Set(fields).sorted().joined(separator: ","))\n"
    }
}

/// The request log: one line per request, appended under a lock (requests arrive on
/// several connections at once).
private final class RequestLog: Sendable {
    private let handle: Mutex<FileHandle>

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else { throw CLIError("cannot write \(path)") }
        self.handle = Mutex(handle)
    }

    func append(_ line: String) {
        handle.withLock { $0.write(Data(line.utf8)) }
    }
}
