import PayPulseAWS

/// What one measured operation costs on the DynamoDB store, in the units DynamoDB and KMS
/// bill: its counted calls, the index writes its item changes made (items read from moto
/// before and after it), and capacity units for a grant item of `grantItem`'s size (the
/// measured grants' own items hold the fake Google's short tokens).
struct DynamoDBOperationCost: Sendable {
    let calls: OperationCalls
    /// Index entries written per unit (a user, or a grant of a run): the mean over the
    /// measured changes.
    let indexWrites: Double
    /// Read units of its item reads: strongly consistent `GetItem`s (the store's and the
    /// users directory's), 1 per 4 KB of the grant item (an absent item costs 1 too).
    /// Listings are reckoned per run apart.
    let readUnits: Double
    /// Write units on the table: 1 per KB of the grant item per write (the larger of the
    /// item before and after, which differ by a few bytes).
    let tableWriteUnits: Double
    /// Write units on the due index: 1 per KB of the item's entry per index write.
    let indexWriteUnits: Double

    var writeUnits: Double { tableWriteUnits + indexWriteUnits }
    var kms: Int { calls.kms }

    init(_ calls: OperationCalls, table: TableShape, grantItem: DynamoDBItem) {
        self.calls = calls
        let changes = calls.items
        indexWrites = changes.isEmpty ? 0
            : Double(changes.map { change in table.indexes.reduce(0) { $0 + $1.entryWrites(change) } }.reduce(0, +)) / Double(changes.count)
        let entry = table.indexes.compactMap { $0.entry(of: grantItem) }.map(DynamoDBSizing.bytes).max() ?? DynamoDBSizing.bytes(grantItem)
        readUnits = Double(calls.dynamoDBItemReads * DynamoDBSizing.readUnits(bytes: DynamoDBSizing.bytes(grantItem)))
        tableWriteUnits = Double(calls.dynamoDBWrites * DynamoDBSizing.writeUnits(grantItem))
        indexWriteUnits = indexWrites * Double(DynamoDBSizing.writeUnits(bytes: entry))
    }
}

/// The DynamoDB store's measurements: the counted calls, the measured items, and what the
/// calls cost for a grant item with Google's tokens at the lengths seen in practice.
struct DynamoDBMeasurements: Sendable {
    let measured: Measurements
    let table: TableShape
    /// A grant as the store wrote it with Google's tokens at lengths seen in practice
    /// (``Sizing``): what the model prices.
    let grantItem: DynamoDBItem
    /// The same with the tokens at their documented maxima: the bound on an item.
    let largestItem: DynamoDBItem

    /// Google's tokens: at most 2,048 and 512 bytes (Google's OAuth 2.0 documentation, see
    /// docs/operating.md, "The published figures it uses"); in practice shorter: a ya29. access token of about 250
    /// bytes, a 1// refresh token of about 100 (an observation, not a documented figure).
    /// The fake Google's are a few bytes, so the measured grants' items are smaller still.
    enum Sizing {
        static let typicalAccessTokenBytes = 250, typicalRefreshTokenBytes = 103
        static let largestAccessTokenBytes = 2_048, largestRefreshTokenBytes = 512
    }

    /// The same measurements with the index projecting the item's plain attributes only
    /// (every one but its binary ones and the key's bookkeeping: what a listing reads), or
    /// `nil` when the table has no index or already projects less.
    var withPlainProjection: DynamoDBMeasurements? {
        let plain = Set(grantItem.filter { $0.value.binaryValue == nil }.keys).subtracting(["kid", "dk_at"])
        let shape = table.projecting(plain)
        guard let entry = shape.indexes.compactMap({ $0.entry(of: grantItem) }).first, DynamoDBSizing.bytes(entry) < indexEntryBytes else { return nil }
        return DynamoDBMeasurements(measured: measured, table: shape, grantItem: grantItem, largestItem: largestItem)
    }

    func cost(_ calls: OperationCalls) -> DynamoDBOperationCost { DynamoDBOperationCost(calls, table: table, grantItem: grantItem) }

    var connect: DynamoDBOperationCost { cost(measured.connect) }
    var profile: DynamoDBOperationCost { cost(measured.profile) }
    var refresh: DynamoDBOperationCost { cost(measured.refresh) }
    var freshTokenServed: DynamoDBOperationCost { cost(measured.freshTokenServed) }
    var all: [DynamoDBOperationCost] { measured.all.map(cost) }

    /// A measured grant after its refresh, with the fake Google's short tokens.
    var measuredItem: DynamoDBItem? {
        measured.refresh.items.compactMap(\.after).max { DynamoDBSizing.bytes($0) < DynamoDBSizing.bytes($1) }
    }
    var grantItemBytes: Int { DynamoDBSizing.bytes(grantItem) }
    /// The grant item's entry in the index (0 without one).
    var indexEntryBytes: Int { table.indexes.compactMap { $0.entry(of: grantItem) }.map(DynamoDBSizing.bytes).max() ?? 0 }

    /// How a run lists: by a query per partition of a due index (the idle run's queries,
    /// one per partition when nothing is due), or by scanning the table.
    var listing: Listing {
        let queries = measured.idleRun.calls["Query"] ?? 0
        if queries > 0 { return .dueIndex(partitions: queries) }
        return .scan(callsForListed: measured.idleRun.calls["Scan"] ?? 0, listed: measured.listedGrants)
    }

    enum Listing: Sendable {
        case dueIndex(partitions: Int)
        case scan(callsForListed: Int, listed: Int)
    }
}
