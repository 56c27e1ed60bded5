import Foundation
import PayPulseAWS
import PayPulseApp
import PayPulseCoding
import PayPulseHandlers
import PayPulsePorts
import PayPulseRuntime
import PayPulseTestSupport

/// What each operation costs in AWS calls, counted on the wire.
struct Measurements: Sendable {
    let connect: OperationCalls
    let reconnect: OperationCalls
    /// A reconnect in a warm process that already holds the user's data key.
    let reconnectKeyCached: OperationCalls
    let profile: OperationCalls
    /// Per refreshed grant (the run's listing and client-ID read apart).
    let refresh: OperationCalls
    /// One run's fixed part: the listing of `listedGrants` grants, none due, and nothing else.
    let idleRun: OperationCalls
    let listedGrants: Int
    let freshTokenServed: OperationCalls
    let freshTokenRefreshed: OperationCalls
    let disconnect: OperationCalls

    var all: [OperationCalls] { [connect, reconnect, reconnectKeyCached, profile, refresh, idleRun, freshTokenServed, freshTokenRefreshed, disconnect] }

    /// Runs every operation once on `store` through the functions as deployed. Every
    /// function is a fresh process (its own assembly and caches, as a Lambda function is),
    /// warmed first where a warm one holds a cache (the client ID) with another user.
    static func take(_ bench: CapacityBench, on store: MeasuredStore) async throws -> Measurements {
        func handlers(_ name: HandlerName, _ extra: [String: String] = [:]) async throws -> EventHandlers {
            try await bench.handlers(name, store.environment.merging(extra) { $1 })
        }
        func count(_ name: String, users: [String] = [], _ body: () async throws -> Void) async throws -> OperationCalls {
            try await bench.count(name, users: users, on: store, body)
        }
        let user = { (index: Int) in "\(store.userPrefix)\(index)" }
        // A grant's due-index key is its expiry (or last write) in whole seconds. A token
        // set rewritten within the second it was written keeps its key, which in use never
        // happens (refreshes come most of an hour apart): where items are measured, a
        // write that follows another of the same user waits out the second first.
        func nextSecond() async throws {
            if store.table != nil { try await Task.sleep(for: .milliseconds(1_100)) }
        }
        let warmUser = "\(store.userPrefix)warmup"
        let tokens = try await handlers(.storeTokens)
        let profileHandlers = try await handlers(.userProfile)
        let users = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: bench.moto.endpoint), table: "paypulse-users")
        try await users.putUser(UserRecord(userID: user(0), name: "Capacity", email: "cap@example.com", createdOn: "2026-11-23"))

        // Warm the client-ID cache first: a warm store-tokens reads it once per five minutes.
        try await bench.connect(tokens, user: warmUser)
        let connect = try await count("connect (store-tokens, new user)", users: [user(0)]) { try await bench.connect(tokens, user: user(0)) }
        // A reconnect comes long after the connect: a process of its own, warmed with another
        // user (a data key cached from the connect would spare it the KMS call it makes).
        let again = try await handlers(.storeTokens)
        try await bench.connect(again, user: warmUser)
        try await nextSecond()
        let reconnect = try await count("reconnect (store-tokens, same user)", users: [user(0)]) { try await bench.connect(again, user: user(0)) }
        // The same process again: on DynamoDB it holds the user's data key now, so a store
        // is the item's read and its conditional write (and the post's count), and no KMS call.
        try await nextSecond()
        let reconnectKeyCached = try await count("reconnect, warm (store-tokens, same user; DynamoDB: its data key cached)", users: [user(0)]) {
            try await bench.connect(again, user: user(0))
        }
        // The item's read and its conditional write, beside the post's count (CallBudget.countedPost).
        if store.table != nil, reconnectKeyCached.kms != 0 || reconnectKeyCached.total > 2 + CallBudget.countedPost + CallBudget.googleWord {
            throw CapacityError(
                "a reconnect with the data key cached made \(reconnectKeyCached.summary): at most \(2 + CallBudget.countedPost + CallBudget.googleWord) AWS calls and no KMS call"
            )
        }
        let profile = try await count("profile (user-profile)", users: [user(0)]) {
            try await bench.request(profileHandlers, "GET", user: user(0), expect: 200)
        }

        // A refresh run over `grants` due grants: every grant is due with a day-long window.
        let grants = 4
        for index in 1...grants { try await bench.connect(tokens, user: user(index)) }
        let everyone = [warmUser] + (0...grants).map(user)  // user 0 and the warm-up grant are due too
        let eager = try await handlers(.tokenRefresh, ["REFRESH_WINDOW_SECONDS": "86400"])
        try await nextSecond()
        var refreshed = 0
        let run = try await count("refresh run", users: everyone) { refreshed = Int(try await bench.refreshRun(eager)["refreshed"]?.flattened ?? "") ?? 0 }
        guard refreshed == everyone.count else { throw CapacityError("the refresh run refreshed \(refreshed) of \(everyone.count) grants") }

        // The same listing with nothing due: what a run costs before any refresh.
        let idle = try await handlers(.tokenRefresh, ["REFRESH_WINDOW_SECONDS": "0"])
        let idleRun = try await count("refresh run, nothing due") { _ = try await bench.refreshRun(idle) }
        // The idle run's calls (the listing and the client-ID read) are the run's fixed part.
        var perGrant = run.calls
        for (operation, count) in idleRun.calls { perGrant[operation, default: 0] -= count }
        let refresh = try OperationCalls(name: "refresh run's grants", calls: perGrant.filter { $0.value != 0 }, items: run.items)
            .per(everyone.count, name: "refresh one due grant")

        let fresh = try await handlers(.freshToken)
        let served = try await count("fresh-token, token still fresh", users: [user(0)]) { try await bench.freshToken(fresh, user: user(0)) }
        // fresh-token serves a token Google issued within the last minute whatever the window
        // (a concurrent caller's refresh), so these grants' tokens live 30 s: each read renews.
        let shortLived = "\(store.userPrefix)short-lived", warmShortLived = "\(store.userPrefix)warmup-short-lived"
        for grantee in [shortLived, warmShortLived] { try await bench.connect(tokens, user: grantee, expiresIn: 30) }
        let expiring = try await handlers(.freshToken)
        try await bench.freshToken(expiring, user: warmShortLived)  // the client-ID read, cached from then on
        try await nextSecond()
        let freshRefreshed = try await count("fresh-token, refreshed", users: [shortLived]) { try await bench.freshToken(expiring, user: shortLived) }
        // A row named for a refresh must have measured one (a write of the renewed set).
        guard freshRefreshed.writes + freshRefreshed.dynamoDBWrites > 0 else {
            throw CapacityError("fresh-token, refreshed made no write (\(freshRefreshed.summary)): it served the stored token")
        }

        let disconnectHandlers = try await handlers(.disconnect)
        let disconnect = try await count("disconnect", users: [user(2)]) {
            try await bench.request(disconnectHandlers, "DELETE", user: user(2), expect: 200)
        }
        return Measurements(
            connect: connect, reconnect: reconnect, reconnectKeyCached: reconnectKeyCached, profile: profile, refresh: refresh, idleRun: idleRun, listedGrants: everyone.count,
            freshTokenServed: served, freshTokenRefreshed: freshRefreshed, disconnect: disconnect
        )
    }
}
