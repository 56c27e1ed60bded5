import Foundation
import PayPulseTestSupport

/// The matrix as a table: rows handler x position, columns fault (one-shot, then
/// persistent), cells a / a* / b / c / v (`-` where a position does not exist, `X` for a
/// failed cell), then the counts.
struct MatrixReport {
    struct Row {
        var label: String
        var cells: [String]
    }

    let store: FaultStore
    let faults: [ProxyFault]
    var rows: [Row] = []
    var counts: [CellOutcome: Int] = [:]
    var failures: [CellFailure] = []
    /// Each scenario's fault-free call sequence, where the positions come from.
    var sequences: [(scenario: String, calls: [String])] = []
    var seconds: Double = 0

    var totalCells: Int { counts.values.reduce(0, +) + failures.count }

    func render() -> String {
        let headers = faults.map(\.description)
        let width = max(rows.map(\.label.count).max() ?? 0, 24)
        let columnWidth = max(headers.map(\.count).max() ?? 0, 3)
        let pad = { (text: String, width: Int) in text + String(repeating: " ", count: max(width - text.count, 0)) }
        var lines = ["Fault matrix on \(store): every handler x fault x call position (moto_server and the fake Google behind FaultProxy)"]
        let group = headers.map { pad($0, columnWidth) }.joined(separator: " ")
        lines.append(pad("", width) + " | one-shot" + String(repeating: " ", count: max(group.count - 9, 0)) + " | persistent")
        lines.append(pad("handler / position", width) + " | " + group + " | " + group)
        lines.append(String(repeating: "-", count: width + 6 + group.count * 2))
        for row in rows {
            let half = row.cells.count / 2
            let render = { (cells: ArraySlice<String>) in cells.map { pad($0, columnWidth) }.joined(separator: " ") }
            lines.append(pad(row.label, width) + " | " + render(row.cells[..<half]) + " | " + render(row.cells[half...]))
        }
        lines.append("")
        for outcome in CellOutcome.allCases {
            lines.append("\(pad(outcome.rawValue, 3)) \(String(format: "%4d", counts[outcome] ?? 0))  \(outcome.meaning)")
        }
        lines.append("X   \(String(format: "%4d", failures.count))  failed")
        lines.append("cells: \(totalCells), failed: \(failures.count), time: \(String(format: "%.1f", seconds)) s")
        lines.append("")
        lines.append("fault-free call sequences:")
        for sequence in sequences { lines.append("  \(sequence.scenario): \(sequence.calls.joined(separator: " "))") }
        for failure in failures { lines.append("FAILED \(failure)") }
        return lines.joined(separator: "\n")
    }

    /// Writes the table to `.build/reports/fault-matrix-<store>.txt` under the package root.
    func write() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent(".build/reports")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("fault-matrix-\(store.rawValue).txt")
        try (render() + "\n").write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}
