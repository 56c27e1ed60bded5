import Foundation
import PayPulseApp
@testable import PayPulseLocalServer
import Testing

@Suite("The console page")
struct ConsolePageTests {
    private func page(_ grants: [ConsoleGrant], notice: String? = nil) -> String {
        ConsolePage(
            grants: grants, lastRefresh: nil, notice: notice, storeDescription: "embedded store in <dir>/",
            googleDescription: "local", now: Date(timeIntervalSince1970: 1_800_000_000)
        ).html
    }

    @Test("every stored value is escaped: a hostile name, id, email or scope is text, never markup")
    func escapesEverything() {
        let hostile = #"<script>alert("x")</script>"#
        let html = page(
            [ConsoleGrant(
                userID: "u\"><img src=x>", userName: hostile, googleEmail: "a<b>@gmail.com", status: "connected", verified: true,
                accessTokenExpires: Date(timeIntervalSince1970: 1_800_000_600), scopes: ["<i>scope</i>"], deletionDate: nil
            )],
            notice: "<b>done</b>"
        )
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img src=x>"))
        #expect(!html.contains("<i>scope</i>"))
        #expect(!html.contains("<b>done</b>"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        #expect(html.contains("embedded store in &lt;dir&gt;/"))
        #expect(html.contains("(in 10 min)"))
    }

    @Test("a `<` behind a prepend scalar (U+0600) is escaped too: escaping walks scalars, not grapheme clusters")
    func escapesBehindPrependScalars() {
        let hostile = "\u{0600}<svg/onload=alert(document.domain)//\u{0600}>"
        let html = page(
            [ConsoleGrant(
                userID: "u\u{0600}\"\u{0600}>", userName: hostile, googleEmail: hostile + "@gmail.com", status: "connected", verified: true,
                accessTokenExpires: nil, scopes: [hostile], deletionDate: nil
            )],
            notice: "Disconnecting \(hostile) failed."
        )
        #expect(!html.contains("<svg"), "markup from a stored value reached the page")
        let quoteBehindPrepend = "\u{0600}" + "\""
        #expect(!html.contains(quoteBehindPrepend), "a quote behind a prepend scalar ends the attribute")
        #expect(html.contains("\u{0600}&lt;svg/onload=alert(document.domain)//\u{0600}&gt;@gmail.com"))
    }

    @Test("each grant's OAuth client is shown: the recorded one, the default for an older verified set, none yet while unverified")
    func clientColumn() {
        func grant(_ id: String, client: String?, verified: Bool) -> ConsoleGrant {
            ConsoleGrant(
                userID: id, userName: nil, googleEmail: nil, status: "connected", verified: verified, clientID: client, accessTokenExpires: nil,
                scopes: [], deletionDate: nil
            )
        }
        let html = page([
            grant("u1", client: "testflight-build.apps.googleusercontent.com", verified: true), grant("u2", client: nil, verified: true),
            grant("u3", client: nil, verified: false), grant("u4", client: "<b>x</b>", verified: true),
        ])
        #expect(html.contains("<th>OAuth client</th>"))
        #expect(html.contains(#"<td class="client">testflight-build.apps.googleusercontent.com</td>"#))
        #expect(html.contains(#"<td class="client">default client</td>"#))
        #expect(html.contains(#"<td class="client">–</td>"#))
        #expect(html.contains(#"<td class="client">&lt;b&gt;x&lt;/b&gt;</td>"#))
    }

    @Test("the purge date is labelled as what the store means by it")
    func deletionLabels() {
        let grant = ConsoleGrant(
            userID: "user-1", userName: nil, googleEmail: nil, status: "disconnected", verified: nil, accessTokenExpires: nil, scopes: [],
            deletionDate: Date(timeIntervalSince1970: 1_800_000_000)
        )
        func html(_ meaning: ConsoleGrant.DeletionDateMeaning) -> String {
            ConsolePage(grants: [grant], lastRefresh: nil, notice: nil, storeDescription: "s", googleDescription: "g", now: Date(), deletionDateMeaning: meaning).html
        }
        #expect(html(.requested).contains("disconnected · deletion requested 2027-01-15T08:00:00Z"))
        #expect(html(.endOfRecoveryWindow).contains("disconnected · recoverable until 2027-01-15T08:00:00Z"))
        #expect(!html(.endOfRecoveryWindow).contains("deletion requested"))
        #expect(ConsoleGrant.DeletionDateMeaning(store: .embedded) == .requested)
        #expect(ConsoleGrant.DeletionDateMeaning(store: .aws) == .endOfRecoveryWindow)
        #expect(ConsoleGrant.DeletionDateMeaning(store: .dynamodb) == .endOfRecoveryWindow)
    }

    @Test("both buttons' forms carry the server's token; the style carries the page's nonce")
    func formTokenAndNonce() {
        let html = ConsolePage(
            grants: [ConsoleGrant(
                userID: "user-1", userName: nil, googleEmail: "a@gmail.com", status: "connected", verified: true, accessTokenExpires: nil,
                scopes: [], deletionDate: nil
            )],
            lastRefresh: nil, notice: nil, storeDescription: "s", googleDescription: "g", now: Date(), formToken: "t0k3n", styleNonce: "n0nce"
        ).html
        #expect(html.components(separatedBy: #"<input type="hidden" name="console_token" value="t0k3n">"#).count == 3)
        #expect(html.contains(#"<style nonce="n0nce">"#))
    }

    @Test("the stand-in Google's address brackets an IPv6 host")
    func ownAddress() {
        #expect(LocalServer.ownBaseURL(host: "::1", port: 8080) == "http://[::1]:8080")
        #expect(LocalServer.ownBaseURL(host: "fe80::1", port: 80) == "http://[fe80::1]:80")
        #expect(LocalServer.ownBaseURL(host: "[::1]", port: 8080) == "http://[::1]:8080")
        #expect(LocalServer.ownBaseURL(host: "127.0.0.1", port: 8080) == "http://127.0.0.1:8080")
        #expect(LocalServer.ownBaseURL(host: "0.0.0.0", port: 8080) == "http://127.0.0.1:8080")
        #expect(LocalServer.ownBaseURL(host: "::", port: 8080) == "http://[::1]:8080")
    }

    @Test("a disconnected grant shows its deletion and no disconnect button; no grants says so")
    func states() {
        let disconnected = page([ConsoleGrant(
            userID: "user-1", userName: nil, googleEmail: nil, status: "disconnected", verified: nil, accessTokenExpires: nil, scopes: [],
            deletionDate: Date(timeIntervalSince1970: 1_800_000_000)
        )])
        #expect(disconnected.contains("disconnected · deletion requested 2027-01-15T08:00:00Z"))
        #expect(!disconnected.contains("class=\"danger\""))
        #expect(page([]).contains("No Gmail grants are stored yet."))
        let unverified = page([ConsoleGrant(
            userID: "user-2", userName: "Bo", googleEmail: "bo@gmail.com", status: "connected", verified: false,
            accessTokenExpires: Date(timeIntervalSince1970: 1_700_000_000), scopes: [], deletionDate: nil
        )])
        #expect(unverified.contains("connected (unverified)"))
        #expect(unverified.contains("(expired)"))
    }
}
