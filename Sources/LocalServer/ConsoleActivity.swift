import Foundation
import Logging
import PayPulseDomain
import PayPulseHandlers
import PayPulseRuntime

/// What the console and the refresh timer do, through the functions' own handlers: a
/// refresh run is the token-refresh function's scheduled event, a disconnect is the
/// disconnect function's `DELETE` with a JWT minted for the user. Remembers the last run.
actor ConsoleActivity {
    /// One refresh run, as the console shows it.
    struct RefreshRun: Sendable, Equatable {
        var finishedAt: Date
        var outcome: String
    }

    private let refresh: EventHandlers
    private let disconnect: EventHandlers
    /// `nil` when tokens come from elsewhere (``unmintable`` says where).
    private let minter: (any TokenMinter)?
    private let unmintable: String
    private let logger: Logger
    private(set) var lastRefresh: RefreshRun?
    private var notice: String?

    /// - Parameter unmintable: without a minter, why none: shown when a disconnect needs a token.
    init(refresh: EventHandlers, disconnect: EventHandlers, minter: (any TokenMinter)?, unmintable: String = "", logger: Logger) {
        self.refresh = refresh
        self.disconnect = disconnect
        self.minter = minter
        self.unmintable = unmintable
        self.logger = logger
    }

    /// The message of the last action, shown once.
    func takeNotice() -> String? {
        defer { notice = nil }
        return notice
    }

    /// Runs the refresh job once and returns what it did.
    @discardableResult
    func runRefresh() async -> RefreshRun {
        let context = InvocationContext(requestID: "local-refresh-\(UUID().uuidString.lowercased())", logger: logger)
        let outcome: String
        do {
            guard let scheduled = refresh.scheduled else { throw ConsoleActionError("the refresh handler takes no scheduled event") }
            let output = try await scheduled(ScheduledEvent(), context)
            if let summary = try? JSONDecoder().decode(RefreshSummary.self, from: Data(output)) {
                outcome = "scanned \(summary.scanned), due \(summary.due), refreshed \(summary.refreshed), revoked \(summary.revoked), "
                    + "rejected \(summary.rejected), transient failures \(summary.transient_failures)"
            } else {
                outcome = String(decoding: output, as: UTF8.self)
            }
        } catch {
            outcome = "failed: \(error)"
        }
        let run = RefreshRun(finishedAt: Date(), outcome: outcome)
        lastRefresh = run
        notice = "Refresh run: \(outcome)"
        logger.info("refresh run: \(outcome)")
        return run
    }

    /// Disconnects `userID` as the app would, and returns the HTTP status answered.
    func disconnect(userID: String) async -> Int {
        // The function would answer 401 (no JWT can carry such a sub): say what is wrong.
        guard UserID(userID) != nil else {
            notice = "\(userID) is not a valid user id: nothing was disconnected."
            return 400
        }
        guard let minter else {
            notice = "This console cannot mint a token to disconnect \(userID): \(unmintable). Disconnect from the app."
            return 409
        }
        let now = Date()
        guard let jwt = try? minter.mint(subject: userID, name: nil, email: nil, issuedAt: now, expiresAt: now.addingTimeInterval(60)),
              let event = try? SampleHTTPEvent(method: "DELETE", path: "/v1/auth/gmail-tokens", bearer: jwt, jsonBody: nil).encoded()
        else {
            notice = "Disconnecting \(userID) failed: no token could be minted."
            return 500
        }
        let context = InvocationContext(requestID: "local-disconnect-\(UUID().uuidString.lowercased())", logger: logger)
        guard case .response(let bytes) = await disconnect.handle(event, context: context),
              let status = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["statusCode"] as? Int
        else {
            notice = "Disconnecting \(userID) failed."
            return 500
        }
        notice = status == 200 ? "Disconnected \(userID)." : "Disconnecting \(userID) was answered with HTTP \(status)."
        return status
    }
}

/// A console action that could not run.
struct ConsoleActionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
