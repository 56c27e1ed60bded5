import Foundation

/// Published quotas and prices (Secrets Manager, AWS documentation 2025–2026; listed in
/// docs/operating.md, "The published figures it uses") and the traffic assumed per user.
enum Published {
    /// PutSecretValue, UpdateSecretVersionStage and UpdateSecret together, per region; cannot be raised.
    static let writesPerSecond = 50.0
    /// TagResource and UntagResource, per region.
    static let tagWritesPerSecond = 50.0
    /// GetSecretValue (DescribeSecret has 40,000/s).
    static let readsPerSecond = 10_000.0
    /// ListSecrets.
    static let listingsPerSecond = 100.0
    /// Secrets per region by default.
    static let secretsPerRegion = 500_000.0
    /// Dollars per secret per month.
    static let secretPrice = 0.40
    /// Dollars per 10,000 API calls.
    static let callPrice = 0.05
    /// The share of the write quota the refresh job paces itself to (template: 40 of 50/s).
    static let refreshWritePace = 40.0
}

/// The traffic of one connected user, and the refresh cadence.
struct Traffic {
    /// Google's access tokens live an hour.
    var accessTokenLifetime = 3599.0
    /// REFRESH_WINDOW_SECONDS and the schedule (rate(5 minutes)).
    var window = 900.0, schedule = 300.0
    /// KEEPALIVE_SECONDS.
    var keepAlive = 86_400.0
    /// fresh-token calls per user per day in keepalive mode (a reader syncing every six hours).
    var freshTokenReadsPerDay = 4.0
    /// Profile views per user per day; connects per user per month.
    var profilesPerDay = 1.0, connectsPerMonth = 1.0

    /// Eager refreshes per grant per day: a set is taken by the first run after it enters
    /// the window, on average half a schedule late.
    var eagerRefreshesPerDay: Double { 86_400 / (accessTokenLifetime - window + schedule / 2) }
    /// Keepalive refreshes per grant per day: the keep-alive, or a read finding the token
    /// expired (each read more than an hour after the last refresh renews it).
    var keepAliveRefreshesPerDay: Double { max(86_400 / keepAlive, min(freshTokenReadsPerDay, 86_400 / accessTokenLifetime)) }
}

/// One row of the table: `users` connected under `mode`.
struct CapacityRow {
    let users: Int
    let mode: String
    let callsPerMonth: Double
    let dollarsPerMonth: Double
    let writesPerSecond: Double
    let tagWritesPerSecond: Double
    let listingSecondsPerRun: Double
    /// What the stack runs into first, or "none".
    let binding: String
    /// Grants one stack keeps fresh (eager) or alive (keepalive) within the refresh write pace.
    let grantsPerStack: Int
}

/// The measured calls combined with the traffic, quotas and prices.
struct CapacityModel {
    let measured: Measurements
    let traffic: Traffic

    func row(users: Int, mode: String) -> CapacityRow {
        let n = Double(users), day = 86_400.0, month = 30.0
        let refreshesPerDay = mode == "eager" ? traffic.eagerRefreshesPerDay : traffic.keepAliveRefreshesPerDay
        let runsPerDay = day / traffic.schedule
        let pagesPerRun = (n / 100).rounded(.up) * Double(measured.idleRun.listings) / max((Double(measured.listedGrants) / 100).rounded(.up), 1)
        // Calls per day by source.
        let refreshCalls = n * refreshesPerDay * Double(measured.refresh.total)
        let listingCalls = runsPerDay * (pagesPerRun + 1)  // + the client-ID read per run
        let reads = mode == "eager" ? 0 : n * traffic.freshTokenReadsPerDay * Double(measured.freshTokenServed.total)
        let api = n * (traffic.profilesPerDay * Double(measured.profile.total) + traffic.connectsPerMonth / month * Double(measured.connect.total))
        let callsPerMonth = (refreshCalls + listingCalls + reads + api) * month
        let dollars = n * Published.secretPrice + callsPerMonth / 10_000 * Published.callPrice
        let writes = n * refreshesPerDay * Double(measured.refresh.writes) / day
        let tags = n * refreshesPerDay * Double(measured.refresh.tagWrites) / day
        let listingSeconds = pagesPerRun / Published.listingsPerSecond
        // The refresh job's pace bounds how many grants one stack serves.
        let perStack = Int(Published.refreshWritePace / Double(max(measured.refresh.writes, 1)) * day / refreshesPerDay)
        var limits: [String] = []
        if n > Published.secretsPerRegion { limits.append("secrets per region (\(Int(Published.secretsPerRegion)))") }
        if writes > Published.writesPerSecond { limits.append(String(format: "write quota (%.0f of 50/s)", writes)) }
        if tags > Published.tagWritesPerSecond { limits.append(String(format: "tag quota (%.0f of 50/s)", tags)) }
        if listingSeconds > traffic.schedule { limits.append(String(format: "listing (%.0f s per %.0f s run)", listingSeconds, traffic.schedule)) }
        return CapacityRow(
            users: users, mode: mode, callsPerMonth: callsPerMonth, dollarsPerMonth: dollars, writesPerSecond: writes, tagWritesPerSecond: tags,
            listingSecondsPerRun: listingSeconds, binding: limits.isEmpty ? "none" : limits.joined(separator: "; "), grantsPerStack: perStack
        )
    }

    var rows: [CapacityRow] {
        [10_000, 100_000, 1_000_000].flatMap { users in ["eager", "keepalive"].map { row(users: users, mode: $0) } }
    }
}
