import Foundation

/// Published DynamoDB on-demand and KMS prices and quotas, us-east-1, from AWS's pricing
/// pages and service quotas documentation as of 2025-2026 (on-demand prices after the
/// November 2024 cut). The free tiers (25 GB of storage, 20,000 KMS requests a month) are
/// left out.
enum PublishedDynamoDB {
    /// Dollars per write request unit (1 per KB written): $0.625 per million.
    static let writeUnitPrice = 0.625 / 1_000_000
    /// Dollars per read request unit (a strongly consistent read of up to 4 KB; an
    /// eventually consistent one is half a unit): $0.125 per million.
    static let readUnitPrice = 0.125 / 1_000_000
    /// Dollars per GB-month of table and index storage.
    static let storagePrice = 0.25
    /// Storage DynamoDB counts per item on top of its attributes, in the table and in each index.
    static let itemOverheadBytes = 100.0
    /// An on-demand table's default throughput (account default, adjustable), per second.
    static let tableWriteUnitsPerSecond = 40_000.0
    static let tableReadUnitsPerSecond = 40_000.0
    /// One partition's most, per second: a due-index partition key's writes, and a
    /// listing that reads one partition at a time, are bound by these.
    static let partitionWriteUnitsPerSecond = 1_000.0
    static let partitionReadUnitsPerSecond = 3_000.0
}

enum PublishedKMS {
    /// Dollars per customer managed key per month.
    static let keyPrice = 1.0
    /// Dollars per request: $0.03 per 10,000.
    static let requestPrice = 0.03 / 10_000
    /// The cryptographic operations' shared request quota per account and region: 50,000/s
    /// in us-east-1, 10,000/s by default in smaller regions; the conservative bound.
    static let requestsPerSecond = 10_000.0
}

/// One row of the DynamoDB table: `users` connected under `mode`, grants on DynamoDB with
/// KMS envelope encryption.
struct DynamoDBRow {
    let users: Int
    let mode: String
    let readUnitsPerMonth: Double
    let writeUnitsPerMonth: Double
    let kmsRequestsPerMonth: Double
    /// Secrets Manager calls left (the client-ID secret), priced as Secrets Manager calls.
    let secretsManagerCallsPerMonth: Double
    let storageGB: Double
    let dynamoDBDollars: Double
    let kmsDollars: Double
    let secretsManagerDollars: Double
    var dollarsPerMonth: Double { dynamoDBDollars + kmsDollars + secretsManagerDollars }
    /// Average rates against their quotas.
    let tableWriteUnitsPerSecond: Double
    let tableReadUnitsPerSecond: Double
    /// Index write units per second on each due-index partition key (0 without an index).
    let indexWriteUnitsPerPartitionSecond: Double
    let kmsPerSecond: Double
    let listingCallsPerRun: Double
    let listingReadUnitsPerRun: Double
    /// A run's listing at one partition's read rate: a lower bound on its time.
    let listingSecondsPerRun: Double
    /// Grants one stack keeps fresh (eager) or alive (keepalive) before the refresh path
    /// reaches a quota, and which.
    let grantsPerStack: Int
    let stackBound: String
    /// Quotas exceeded, or "none".
    let binding: String
    /// The quota nearest to its limit, as a share of it.
    let headroom: String
}

/// The DynamoDB store's measured costs combined with the same traffic as the Secrets
/// Manager model and DynamoDB's and KMS's published prices and quotas.
struct DynamoDBCapacityModel {
    let measured: DynamoDBMeasurements
    let traffic: Traffic
    /// The refresh job lists pages of 100 grants (RefreshJob).
    static let pageLimit = 100.0

    func row(users: Int, mode: String) -> DynamoDBRow {
        let n = Double(users), day = 86_400.0, month = 30.0
        let refreshesPerDay = mode == "eager" ? traffic.eagerRefreshesPerDay : traffic.keepAliveRefreshesPerDay
        let runsPerDay = day / traffic.schedule
        // Operations per day, as in the Secrets Manager model.
        let refreshes = n * refreshesPerDay
        let reads = mode == "eager" ? 0 : n * traffic.freshTokenReadsPerDay
        let profiles = n * traffic.profilesPerDay, connects = n * traffic.connectsPerMonth / month
        let (refresh, served, profile, connect) = (measured.refresh, measured.freshTokenServed, measured.profile, measured.connect)
        func perDay(_ value: (DynamoDBOperationCost) -> Double) -> Double {
            refreshes * value(refresh) + reads * value(served) + profiles * value(profile) + connects * value(connect)
        }
        let listing = self.listing(users: n, duePerRun: refreshes / runsPerDay)
        let idle = measured.measured.idleRun

        let readUnits = (perDay(\.readUnits) + runsPerDay * listing.readUnits) * month
        let writeUnits = perDay(\.writeUnits) * month
        let kmsRequests = perDay { Double($0.kms) } * month
        let secretsManagerCalls = (perDay { Double($0.calls.others) } + runsPerDay * Double(idle.others)) * month
        let indexed = measured.indexEntryBytes > 0
        let storedBytes = Double(measured.grantItemBytes) + PublishedDynamoDB.itemOverheadBytes
            + (indexed ? Double(measured.indexEntryBytes) + PublishedDynamoDB.itemOverheadBytes : 0)
        let storageGB = n * storedBytes / 1_073_741_824
        let dynamoDBDollars = readUnits * PublishedDynamoDB.readUnitPrice + writeUnits * PublishedDynamoDB.writeUnitPrice
            + storageGB * PublishedDynamoDB.storagePrice
        let kmsDollars = PublishedKMS.keyPrice + kmsRequests * PublishedKMS.requestPrice
        let secretsManagerDollars = secretsManagerCalls / 10_000 * Published.callPrice

        let partitions = Double(listingPartitions)
        let tableWrites = perDay(\.tableWriteUnits) / day, tableReads = perDay(\.readUnits) / day
        let indexWrites = partitions > 0 ? perDay(\.indexWriteUnits) / day / partitions : 0
        let kms = kmsRequests / month / day
        let listingSeconds = listing.readUnits / PublishedDynamoDB.partitionReadUnitsPerSecond

        // The refresh path alone against each quota: refreshes a second, then grants.
        var bounds: [(String, Double)] = [
            ("KMS requests", PublishedKMS.requestsPerSecond / Double(max(refresh.kms, 1))),
            ("table writes", PublishedDynamoDB.tableWriteUnitsPerSecond / max(refresh.tableWriteUnits, 1)),
            ("table reads", PublishedDynamoDB.tableReadUnitsPerSecond / max(refresh.readUnits, 1)),
        ]
        if partitions > 0, refresh.indexWriteUnits > 0 {
            bounds.append(("due-index partition writes", PublishedDynamoDB.partitionWriteUnitsPerSecond * partitions / refresh.indexWriteUnits))
        }
        // In grants (not refreshes a second): the listing's time grows with the users (a
        // scan) or the grants due (the index); it must fit in a run.
        var grantBounds = bounds.map { ($0.0, $0.1 * day / refreshesPerDay) }
        if listingSeconds > 0 { grantBounds.append(("listing time", n * traffic.schedule / listingSeconds)) }
        let tightest = grantBounds.min { $0.1 < $1.1 } ?? ("none", 0)

        var shares: [(String, Double)] = [
            ("table writes \(Self.rate(tableWrites)) of 40,000 WRU/s", tableWrites / PublishedDynamoDB.tableWriteUnitsPerSecond),
            ("table reads \(Self.rate(tableReads)) of 40,000 RRU/s", tableReads / PublishedDynamoDB.tableReadUnitsPerSecond),
            ("KMS \(Self.rate(kms)) of 10,000 requests/s", kms / PublishedKMS.requestsPerSecond),
            (String(format: "listing %.1f s of a %.0f s run", listingSeconds, traffic.schedule), listingSeconds / traffic.schedule),
        ]
        if partitions > 0 {
            shares.append(("due-index partition writes \(Self.rate(indexWrites)) of 1,000 WRU/s", indexWrites / PublishedDynamoDB.partitionWriteUnitsPerSecond))
        }
        let exceeded = shares.filter { $0.1 > 1 }.map(\.0)
        let nearest = shares.max { $0.1 < $1.1 }.map { String(format: "%@: %.1f %%", $0.0, $0.1 * 100) } ?? "n/a"

        return DynamoDBRow(
            users: users, mode: mode, readUnitsPerMonth: readUnits, writeUnitsPerMonth: writeUnits, kmsRequestsPerMonth: kmsRequests,
            secretsManagerCallsPerMonth: secretsManagerCalls, storageGB: storageGB, dynamoDBDollars: dynamoDBDollars, kmsDollars: kmsDollars,
            secretsManagerDollars: secretsManagerDollars, tableWriteUnitsPerSecond: tableWrites, tableReadUnitsPerSecond: tableReads,
            indexWriteUnitsPerPartitionSecond: indexWrites, kmsPerSecond: kms, listingCallsPerRun: listing.calls,
            listingReadUnitsPerRun: listing.readUnits, listingSecondsPerRun: listingSeconds,
            grantsPerStack: Int(tightest.1), stackBound: tightest.0,
            binding: exceeded.isEmpty ? "none" : exceeded.joined(separator: "; "), headroom: nearest
        )
    }

    /// A rate: one decimal under 10, else whole.
    static func rate(_ value: Double) -> String { String(format: value < 10 ? "%.1f" : "%.0f", value) }

    var rows: [DynamoDBRow] {
        [10_000, 100_000, 1_000_000].flatMap { users in ["eager", "keepalive"].map { row(users: users, mode: $0) } }
    }

    /// The due index's partitions (0 when runs scan the table).
    var listingPartitions: Int {
        if case .dueIndex(let partitions) = measured.listing { return partitions }
        return 0
    }

    /// A run's listing calls and read units: per partition of the due index, pages of up to
    /// 100 due entries, eventually consistent (an index cannot be read otherwise); or a scan
    /// of every item, pages of 100, strongly consistent (the store's scan), scaled from the
    /// measured run's scans.
    func listing(users n: Double, duePerRun due: Double) -> (calls: Double, readUnits: Double) {
        func units(_ items: Double, bytes: Int, perUnit: Double) -> Double {
            Double(DynamoDBSizing.readUnits(bytes: Int((items * Double(bytes)).rounded(.up)))) * perUnit
        }
        let limit = Self.pageLimit
        switch measured.listing {
        case .dueIndex(let partitions):
            let perPartition = due / Double(partitions)
            let fullPages = (perPartition / limit).rounded(.down)
            let rest = perPartition - fullPages * limit
            let entry = measured.indexEntryBytes
            let readUnits = fullPages * units(limit, bytes: entry, perUnit: 0.5) + units(rest, bytes: entry, perUnit: 0.5)
            return (Double(partitions) * (fullPages + 1), Double(partitions) * readUnits)
        case .scan(let callsForListed, let listed):
            let scale = Double(callsForListed) / max((Double(listed) / limit).rounded(.up), 1)
            let fullPages = (n / limit).rounded(.down)
            let rest = n - fullPages * limit
            let item = measured.grantItemBytes
            let readUnits = fullPages * units(limit, bytes: item, perUnit: 1) + (rest > 0 ? units(rest, bytes: item, perUnit: 1) : 0)
            return ((n / limit).rounded(.up) * scale, readUnits * scale)
        }
    }
}
