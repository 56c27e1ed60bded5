import Foundation
import PayPulseAWS
import PayPulseApp
import PayPulseCoding
import PayPulsePorts
import PayPulseTestSupport

/// What each operation costs in AWS calls, counted on the wire.
struct Measurements: Sendable {
    let connect: OperationCalls
    let reconnect: OperationCalls
    let profile: OperationCalls
    /// Per refreshed grant (the run's listing and client-ID read apart).
    let refresh: OperationCalls
    /// One run's fixed part: the listing of `listedGrants` grants, none due, and nothing else.
    let idleRun: OperationCalls
    let listedGrants: Int
    let freshTokenServed: OperationCalls
    let freshTokenRefreshed: OperationCalls
    let disconnect: OperationCalls

    var all: [OperationCalls] { [connect, reconnect, profile, refresh, idleRun, freshTokenServed, freshTokenRefreshed, disconnect] }

    /// Runs every operation once through the functions as deployed.
    static func take(_ bench: CapacityBench) async throws -> Measurements {
        let store = try await bench.handlers(.storeTokens)
        let profileHandlers = try await bench.handlers(.userProfile)
        let users = DynamoDBUserDirectory(client: try AWSTestClients.dynamoDB(endpoint: bench.moto.endpoint), table: "paypulse-users")
        try await users.putUser(UserRecord(userID: "cap-0", name: "Capacity", email: "cap@example.com", createdOn: "2026-11-23"))

        // Warm the client-ID cache first: a warm store-tokens reads it once per five minutes.
        try await bench.connect(store, user: "cap-warmup")
        let connect = try await bench.count("connect (store-tokens, new user)") { try await bench.connect(store, user: "cap-0") }
        let reconnect = try await bench.count("reconnect (store-tokens, same user)") { try await bench.connect(store, user: "cap-0") }
        let profile = try await bench.count("profile (user-profile)") {
            try await bench.request(profileHandlers, "GET", user: "cap-0", expect: 200)
        }

        // A refresh run over `grants` due grants: every grant is due with a day-long window.
        let grants = 4
        for index in 1...grants { try await bench.connect(store, user: "cap-\(index)") }
        let eager = try await bench.handlers(.tokenRefresh, ["REFRESH_WINDOW_SECONDS": "86400"])
        var refreshed = 0
        let run = try await bench.count("refresh run") { refreshed = Int(try await bench.refreshRun(eager)["refreshed"]?.flattened ?? "") ?? 0 }
        let everyone = grants + 2  // cap-0 and the warm-up grant are due too
        guard refreshed == everyone else { throw CapacityError("the refresh run refreshed \(refreshed) of \(everyone) grants") }

        // The same listing with nothing due: what a run costs before any refresh.
        let idle = try await bench.handlers(.tokenRefresh, ["REFRESH_WINDOW_SECONDS": "0"])
        let idleRun = try await bench.count("refresh run, nothing due") { _ = try await bench.refreshRun(idle) }
        // The idle run's calls (the listing and the client-ID read) are the run's fixed part.
        var perGrant = run.calls
        for (operation, count) in idleRun.calls { perGrant[operation, default: 0] -= count }
        let refresh = try OperationCalls(name: "refresh run's grants", calls: perGrant.filter { $0.value != 0 }).per(everyone, name: "refresh one due grant")

        let fresh = try await bench.handlers(.freshToken)
        let served = try await bench.count("fresh-token, token still fresh") { try await bench.freshToken(fresh, user: "cap-0") }
        let expiring = try await bench.handlers(.freshToken, ["REFRESH_WINDOW_SECONDS": "86400"])
        try await bench.freshToken(expiring, user: "cap-warmup")  // the client-ID read, cached from then on
        let freshRefreshed = try await bench.count("fresh-token, refreshed") { try await bench.freshToken(expiring, user: "cap-1") }

        let disconnectHandlers = try await bench.handlers(.disconnect)
        let disconnect = try await bench.count("disconnect") { try await bench.request(disconnectHandlers, "DELETE", user: "cap-2", expect: 200) }
        return Measurements(
            connect: connect, reconnect: reconnect, profile: profile, refresh: refresh, idleRun: idleRun, listedGrants: everyone,
            freshTokenServed: served, freshTokenRefreshed: freshRefreshed, disconnect: disconnect
        )
    }
}
