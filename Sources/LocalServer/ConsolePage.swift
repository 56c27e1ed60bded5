import Foundation
import PayPulseDomain
import PayPulsePorts

/// The console at `GET /`: the stored grants and buttons to run a refresh or disconnect a
/// user. Every value is escaped; no token is ever shown (the rows hold none). Its only
/// style carries a nonce that the page's Content-Security-Policy names; it has no script.
struct ConsolePage {
    var grants: [ConsoleGrant]
    var lastRefresh: ConsoleActivity.RefreshRun?
    var notice: String?
    var storeDescription: String
    var googleDescription: String
    var now: Date
    /// The server's ``ConsoleGuard/formToken``, sent back by every button.
    var formToken = ""
    /// This response's nonce for the style element (see ``contentSecurityPolicy(styleNonce:)``).
    var styleNonce = ""
    /// What the store's purge date is.
    var deletionDateMeaning = ConsoleGrant.DeletionDateMeaning.requested
    /// The newest lifecycle events, newest first; `nil` when this store keeps none (on AWS
    /// they go to the EventBridge bus).
    var events: [ConsoleEvent]?

    /// The policy that lets the page load nothing but its own style, post its forms only
    /// to this server, and never be framed: markup that got in anyway could not run.
    static func contentSecurityPolicy(styleNonce: String) -> String {
        "default-src 'none'; style-src 'nonce-\(styleNonce)'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// A fresh nonce: 16 random bytes in base64.
    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    var html: String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>PayPulse Gmail Connect · local console</title>
        <style nonce="\(styleNonce.htmlEscaped)">
        body { font: 15px/1.45 -apple-system, system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
        h1 { font-size: 1.4rem; margin: 0 0 .25rem; } h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
        .meta { color: #6e6e73; margin: 0 0 1.25rem; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid #e5e5ea; vertical-align: top; }
        th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: #6e6e73; }
        .status { font-weight: 600; }
        .status-connected { color: #1a7f37; } .status-revoked, .status-rejected, .status-unreadable { color: #b42318; }
        .status-disconnected { color: #6e6e73; }
        .scopes { font-size: .8rem; color: #3a3a3c; }
        .notice { background: #eef6ff; border: 1px solid #b6d4fe; padding: .5rem .75rem; margin: 0 0 1rem; border-radius: 6px; }
        .actions { display: flex; gap: .75rem; align-items: center; margin: 0 0 1.25rem; }
        button { font: inherit; padding: .3rem .8rem; border-radius: 6px; border: 1px solid #c7c7cc; background: #fff; cursor: pointer; }
        button.danger { color: #b42318; border-color: #f1aeb5; }
        .empty { color: #6e6e73; padding: 1rem 0; }
        </style>
        </head>
        <body>
        <h1>PayPulse Gmail Connect</h1>
        <p class="meta">Local console · \(storeDescription.htmlEscaped) · Google: \(googleDescription.htmlEscaped)</p>
        \(notice.map { "<p class=\"notice\" id=\"notice\">\($0.htmlEscaped)</p>" } ?? "")
        <div class="actions">
        <form method="post" action="/console/refresh">\(tokenField)<button type="submit" id="run-refresh">Run refresh now</button></form>
        <span class="meta" id="last-refresh">\(lastRefreshText.htmlEscaped)</span>
        </div>
        \(table)
        \(eventsSection)
        </body>
        </html>

        """
    }

    /// The hidden field that carries the form token.
    private var tokenField: String {
        "<input type=\"hidden\" name=\"\(ConsoleGuard.tokenField)\" value=\"\(formToken.htmlEscaped)\">"
    }

    private var lastRefreshText: String {
        guard let run = lastRefresh else { return "No refresh has run since the server started." }
        return "Last refresh \(Self.time(run.finishedAt)): \(run.outcome)"
    }

    private var table: String {
        guard !grants.isEmpty else { return #"<p class="empty" id="no-grants">No Gmail grants are stored yet.</p>"# }
        let rows = grants.map(row).joined(separator: "\n")
        return """
            <table id="grants">
            <thead><tr><th>User</th><th>Google account</th><th>OAuth client</th><th>Status</th><th>Access token expires</th><th>Last security event</th><th>Scopes</th><th></th></tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table>
            """
    }

    private var eventsSection: String {
        guard let events else { return "" }
        guard !events.isEmpty else { return #"<h2>Lifecycle events</h2><p class="empty" id="no-events">No lifecycle event yet.</p>"# }
        let rows = events.map { event in
            [event.occurredAt, event.detailType, event.userID, "\(event.previousStatus) → \(event.status)", event.reason, event.eventID]
                .map { "<td>\($0.htmlEscaped)</td>" }.joined()
        }
        return """
            <h2>Lifecycle events</h2>
            <table id="events">
            <thead><tr><th>Occurred</th><th>Event</th><th>User</th><th>Status</th><th>Reason</th><th>Event id</th></tr></thead>
            <tbody>
            \(rows.map { "<tr>\($0)</tr>" }.joined(separator: "\n"))
            </tbody>
            </table>
            """
    }

    private func row(_ grant: ConsoleGrant) -> String {
        let user = grant.userName.map { "\($0.htmlEscaped)<br><span class=\"meta\">\(grant.userID.htmlEscaped)</span>" } ?? grant.userID.htmlEscaped
        var status = grant.status
        if grant.verified == false { status += " (unverified)" }
        if let deletion = grant.deletionDate { status += " · \(deletionDateMeaning.label) \(Self.time(deletion))" }
        let expires = grant.accessTokenExpires.map { date in
            Self.time(date) + (date < now ? " (expired)" : " (in \(Int(date.timeIntervalSince(now) / 60)) min)")
        } ?? "–"
        // A set that names no client is the default client's once verified (stored before
        // sets recorded it); unverified, Google has not said yet.
        let client = grant.clientID ?? (grant.verified == true ? "default client" : "–")
        // The type's last path segment (`account-disabled`) and when it arrived.
        let event = grant.lastSecurityEvent.map { "\($0.type.split(separator: "/").last.map(String.init) ?? $0.type) · \(Self.time($0.receivedAt))" } ?? "–"
        let button = grant.status == "disconnected" ? "" : """
            <form method="post" action="/console/disconnect">\(tokenField)<input type="hidden" name="user_id" value="\(grant.userID.htmlEscaped)">\
            <button type="submit" class="danger">Disconnect</button></form>
            """
        return """
            <tr data-user="\(grant.userID.htmlEscaped)"><td>\(user)</td><td>\((grant.googleEmail ?? "–").htmlEscaped)</td>\
            <td class="client">\(client.htmlEscaped)</td>\
            <td class="status status-\(grant.status.htmlEscaped)">\(status.htmlEscaped)</td><td>\(expires.htmlEscaped)</td>\
            <td class="security-event">\(event.htmlEscaped)</td>\
            <td class="scopes">\(grant.scopes.map(\.htmlEscaped).joined(separator: "<br>"))</td><td>\(button)</td></tr>
            """
    }

    private static func time(_ date: Date) -> String { RFC3339.string(from: date) }
}
