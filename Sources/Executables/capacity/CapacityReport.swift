import Foundation
import PayPulseAWS

/// The measured calls and the model as Markdown, and the cost as an SVG bar chart.
struct CapacityReport {
    let measured: Measurements
    let model: CapacityModel
    /// The same operations on the DynamoDB token store, and their model.
    let dynamoDB: DynamoDBCapacityModel

    var markdown: String {
        // Every figure says the command and the date that produced it.
        let day = Date().formatted(.iso8601.year().month().day())
        var lines = ["Written by `make capacity` on \(day).", "", "### AWS calls per operation (counted on the wire, functions as deployed, moto)", "",
                     "| operation | calls | Secrets Manager writes | by API |", "| --- | ---: | ---: | --- |"]
        for calls in measured.all {
            lines.append("| \(calls.name) | \(calls.total) | \(calls.writes) | \(calls.summary) |")
        }
        let traffic = model.traffic
        lines += ["", String(
            format: "### Capacity and cost (eager: %.1f refreshes per grant a day; keepalive: %.1f, with %.0f fresh-token reads per user a day; %.0f profile view a day, %.0f connect a month)",
            traffic.eagerRefreshesPerDay, traffic.keepAliveRefreshesPerDay, traffic.freshTokenReadsPerDay, traffic.profilesPerDay, traffic.connectsPerMonth
        ), "",
        "| users | mode | calls / month | $ / month | writes / s (quota 50) | tag writes / s (quota 50) | listing s / run | grants one stack serves | runs into |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for row in model.rows {
            lines.append(String(
                format: "| %@ | %@ | %@ | %@ | %.1f | %.1f | %.1f | %@ | %@ |", Self.grouped(Double(row.users)), row.mode, Self.grouped(row.callsPerMonth),
                Self.grouped(row.dollarsPerMonth), row.writesPerSecond, row.tagWritesPerSecond, row.listingSecondsPerRun, Self.grouped(Double(row.grantsPerStack)),
                row.binding
            ))
        }
        return (lines + [""] + dynamoDBMarkdown + [""] + sideBySide).joined(separator: "\n") + "\n"
    }

    /// The DynamoDB store's calls per operation and its capacity and cost.
    var dynamoDBMarkdown: [String] {
        let measured = dynamoDB.measured
        var lines = ["### AWS calls per operation on the DynamoDB token store (PAYPULSE_STORE=dynamodb, KMS envelope encryption; counted on the wire, moto)", "",
                     "| operation | DynamoDB reads | DynamoDB writes | due-index writes | KMS | Secrets Manager | read units | write units (table + index) | by API |",
                     "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for cost in measured.all {
            let calls = cost.calls
            var readUnits = cost.readUnits
            if calls.dynamoDBListings > 0 {  // the idle run: its listing over the grants it listed, none due
                readUnits += dynamoDB.listing(users: Double(measured.measured.listedGrants), duePerRun: 0).readUnits
            }
            lines.append(String(
                format: "| %@ | %d | %d | %@ | %d | %d | %@ | %@ | %@ |", calls.name, calls.dynamoDBItemReads + calls.dynamoDBListings, calls.dynamoDBWrites,
                Self.units(cost.indexWrites), calls.kms, calls.others, Self.units(readUnits), Self.writeUnits(cost), calls.summary
            ))
        }
        let item = measured.grantItem, bytes = measured.grantItemBytes
        let attributes = item.sorted { $0.key < $1.key }.map { "`\($0.key)` \($0.key.utf8.count + DynamoDBSizing.bytes($0.value))" }.joined(separator: ", ")
        let listing: String
        switch measured.listing {
        case .dueIndex(let partitions):
            listing = "A run lists by one `Query` per partition of the due index (\(partitions) partitions; eventually consistent, half a unit per 4 KB; pages of 100), so its listing grows with the grants due, not the users."
        case .scan:
            listing = "A run lists by a `Scan` of the whole table (strongly consistent, a unit per 4 KB; pages of 100), so its listing grows with the users, not the grants due."
        }
        let largest = DynamoDBSizing.bytes(measured.largestItem)
        let measuredBytes = measured.measuredItem.map(DynamoDBSizing.bytes) ?? 0
        lines += ["", "**Item size, measured** (DynamoDB's sizing rules over the item moto stores): a grant as the store writes it, with Google's tokens at "
                  + "lengths seen in practice (access \(DynamoDBMeasurements.Sizing.typicalAccessTokenBytes) bytes, refresh \(DynamoDBMeasurements.Sizing.typicalRefreshTokenBytes)) "
                  + "and a 36-character user id, is **\(Self.grouped(Double(bytes))) bytes: \(DynamoDBSizing.writeUnits(bytes: bytes)) write unit(s) per write** "
                  + "(as many up to \(Self.grouped(Double(DynamoDBSizing.writeUnits(bytes: bytes) * 1_024))) bytes), 1 read unit per strongly consistent read"
                  + (measured.indexEntryBytes > 0 ? "; its due-index entry (projection ALL) \(Self.grouped(Double(measured.indexEntryBytes))) bytes" : "; the table has no index")
                  + ". By attribute (name + value bytes): \(attributes). With the tokens at Google's documented maxima (2,048 and 512 bytes) the item is \(Self.grouped(Double(largest))) bytes "
                  + "(\(DynamoDBSizing.writeUnits(bytes: largest)) write units per write); the bench's own grants, with the fake Google's short tokens, \(Self.grouped(Double(measuredBytes))) bytes. "
                  + "The rows price the first. moto's wrapped data key (`dk`) is \(item["dk"]?.binaryValue?.count ?? 0) bytes; AWS KMS's are longer (not documented; "
                  + "about 180 bytes is commonly reported).",
                  "", listing + " Read units: strongly consistent `GetItem`s (the store's and the users table's), 1 per 4 KB; "
                  + "write units: 1 per KB written, on the table and again on the due index for each entry put, changed or deleted (an entry whose key changes, as a refresh "
                  + "moves its due date, is deleted and put: two)."]

        let traffic = dynamoDB.traffic
        lines += ["", "### Capacity and cost on DynamoDB + KMS (same traffic; on-demand and KMS prices and quotas, us-east-1, 2025-2026)", "",
                  "| users | mode | read units / month | write units / month | KMS requests / month | $ / month (DynamoDB + KMS + Secrets Manager) | table WRU/s (40,000) | KMS/s (10,000) | due-index WRU/s per partition (1,000) | listing per run: calls, read units | grants one stack serves (bound) | runs into | nearest quota |",
                  "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
        for row in dynamoDB.rows {
            lines.append(String(
                format: "| %@ | %@ | %@ | %@ | %@ | %@ (%@ + %@ + %@) | %.0f | %.0f | %@ | %@, %@ | %@ (%@) | %@ | %@ |",
                Self.grouped(Double(row.users)), row.mode, Self.grouped(row.readUnitsPerMonth), Self.grouped(row.writeUnitsPerMonth),
                Self.grouped(row.kmsRequestsPerMonth), Self.dollars(row.dollarsPerMonth), Self.dollars(row.dynamoDBDollars), Self.dollars(row.kmsDollars),
                Self.dollars(row.secretsManagerDollars), row.tableWriteUnitsPerSecond, row.kmsPerSecond,
                dynamoDB.listingPartitions > 0 ? String(format: "%.1f", row.indexWriteUnitsPerPartitionSecond) : "n/a",
                Self.grouped(row.listingCallsPerRun), Self.units(row.listingReadUnitsPerRun), Self.grouped(Double(row.grantsPerStack)), row.stackBound,
                row.binding, row.headroom
            ))
        }
        lines += ["", String(format: "Storage: %.2f GB at 1,000,000 users (items and index entries with DynamoDB's 100 bytes each), $%.2f a month. "
                             + "KMS: one customer managed key, $1 a month. Secrets Manager: the client-ID secret's reads at $0.05 per 10,000 (its own "
                             + "$0.40 a month, and the JWT key's, are left out of both stores' rows).",
                             dynamoDB.rows.last?.storageGB ?? 0, (dynamoDB.rows.last?.storageGB ?? 0) * PublishedDynamoDB.storagePrice)]
        if let plain = measured.withPlainProjection {
            let alternative = DynamoDBCapacityModel(measured: plain, traffic: traffic)
            let now = dynamoDB.rows, then = alternative.rows
            let projected = plain.table.indexes.first.map { index -> String in
                if case .include(let names) = index.projection { return names.sorted().map { "`\($0)`" }.joined(separator: ", ") }
                return ""
            } ?? ""
            lines += ["", "The due index projects ALL attributes, so every refresh writes the sealed value twice more (its entry deleted and put). "
                      + "Projecting only the plain attributes a listing reads (\(projected), besides the keys) would make an entry "
                      + "\(plain.indexEntryBytes) bytes, \(DynamoDBSizing.writeUnits(bytes: plain.indexEntryBytes)) write unit(s): with the same measured writes, a refresh "
                      + "\(Self.units(plain.refresh.writeUnits)) write units instead of \(Self.units(measured.refresh.writeUnits)), and per month "
                      + zip(now, then).map { "$\(Self.dollars($1.dollarsPerMonth)) instead of $\(Self.dollars($0.dollarsPerMonth)) at \(Self.grouped(Double($0.users))) users \($0.mode)" }
                          .joined(separator: ", ") + " (not built: the table's definition is the store's)."]
        }
        return lines
    }

    /// Both stores' rows side by side.
    var sideBySide: [String] {
        var lines = ["### Secrets Manager beside DynamoDB + KMS", "",
                     "| users | mode | Secrets Manager $ / month | DynamoDB + KMS $ / month | ratio | Secrets Manager runs into | DynamoDB + KMS runs into (nearest quota) |",
                     "| ---: | --- | ---: | ---: | ---: | --- | --- |"]
        for (secrets, table) in zip(model.rows, dynamoDB.rows) {
            lines.append(String(
                format: "| %@ | %@ | %@ | %@ | %@ | %@ | %@ (%@) |", Self.grouped(Double(secrets.users)), secrets.mode, Self.grouped(secrets.dollarsPerMonth),
                Self.dollars(table.dollarsPerMonth), Self.ratio(table.dollarsPerMonth / secrets.dollarsPerMonth), secrets.binding, table.binding, table.headroom
            ))
        }
        return lines
    }

    /// Dollars per month by configuration and store, log-scaled bars.
    var svg: String {
        var bars: [(label: String, dollars: Double, color: String, over: Bool)] = []
        for (secrets, table) in zip(model.rows, dynamoDB.rows) {
            let label = "\(Self.grouped(Double(secrets.users))) users, \(secrets.mode)"
            bars.append(("\(label), Secrets Manager", secrets.dollarsPerMonth, secrets.mode == "eager" ? "#c0504d" : "#4f81bd", secrets.binding != "none"))
            bars.append(("\(label), DynamoDB + KMS", table.dollarsPerMonth, secrets.mode == "eager" ? "#e6a19f" : "#a7c0de", table.binding != "none"))
        }
        let width = 840.0, barHeight = 18.0, gap = 6.0, left = 305.0
        let top = log10(bars.map(\.dollars).max() ?? 1)
        var parts = [#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(Double(bars.count) * (barHeight + gap) + 50))" font-family="sans-serif" font-size="12">"#,
                     #"<text x="10" y="18" font-size="14">Dollars per month (log scale), measured calls: Secrets Manager, and DynamoDB + KMS (lighter)</text>"#]
        for (index, bar) in bars.enumerated() {
            let y = 32 + Double(index) * (barHeight + gap) + (index % 2 == 0 ? 0 : -gap / 2)
            let length = max(log10(max(bar.dollars, 1)) / max(top, 1), 0.02) * (width - left - 170)
            parts.append(#"<text x="10" y="\#(y + 13)">\#(bar.label)</text>"#)
            parts.append(#"<rect x="\#(left)" y="\#(y)" width="\#(String(format: "%.1f", length))" height="\#(barHeight)" fill="\#(bar.color)"/>"#)
            parts.append(#"<text x="\#(String(format: "%.1f", left + length + 6))" y="\#(y + 13)">$\#(Self.dollars(bar.dollars))\#(bar.over ? " (over a quota)" : "")</text>"#)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n"
    }

    /// `1,234,567`.
    static func grouped(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        var out = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0, index % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }

    /// Dollars: grouped whole dollars from 100 up, else cents.
    static func dollars(_ value: Double) -> String { value >= 100 ? grouped(value) : String(format: "%.2f", value) }

    /// Capacity units: whole units grouped from 100 up, else one decimal.
    static func units(_ value: Double) -> String { value >= 100 ? grouped(value) : String(format: "%.1f", value) }

    static func ratio(_ value: Double) -> String { value < 0.01 ? String(format: "%.4f", value) : String(format: "%.3f", value) }

    /// `3 (2 + 1)`: table and index write units.
    static func writeUnits(_ cost: DynamoDBOperationCost) -> String {
        cost.writeUnits == 0 ? "0" : "\(units(cost.writeUnits)) (\(units(cost.tableWriteUnits)) + \(units(cost.indexWriteUnits)))"
    }
}
