import Foundation

/// The measured calls and the model as Markdown, and the cost as an SVG bar chart.
struct CapacityReport {
    let measured: Measurements
    let model: CapacityModel

    var markdown: String {
        var lines = ["### AWS calls per operation (counted on the wire, functions as deployed, moto)", "",
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
        return lines.joined(separator: "\n") + "\n"
    }

    /// Dollars per month by configuration, log-scaled bars.
    var svg: String {
        let rows = model.rows, width = 720.0, barHeight = 22.0, left = 170.0
        let top = log10(rows.map(\.dollarsPerMonth).max() ?? 1)
        var parts = [#"<svg xmlns="http://www.w3.org/2000/svg" width="720" height="\#(Int(Double(rows.count) * (barHeight + 8) + 50))" font-family="sans-serif" font-size="12">"#,
                     #"<text x="10" y="18" font-size="14">Secrets Manager dollars per month (log scale), measured calls</text>"#]
        for (index, row) in rows.enumerated() {
            let y = 32 + Double(index) * (barHeight + 8)
            let length = max(log10(max(row.dollarsPerMonth, 1)) / max(top, 1), 0.02) * (width - left - 120)
            let color = row.mode == "eager" ? "#c0504d" : "#4f81bd"
            parts.append(#"<text x="10" y="\#(y + 15)">\#(Self.grouped(Double(row.users))) users, \#(row.mode)</text>"#)
            parts.append(#"<rect x="\#(left)" y="\#(y)" width="\#(String(format: "%.1f", length))" height="\#(barHeight)" fill="\#(color)"/>"#)
            parts.append(#"<text x="\#(String(format: "%.1f", left + length + 6))" y="\#(y + 15)">$\#(Self.grouped(row.dollarsPerMonth))\#(row.binding == "none" ? "" : " (over a quota)")</text>"#)
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
}
