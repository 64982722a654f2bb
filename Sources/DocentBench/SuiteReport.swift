import Foundation

/// One line of the benchmark's table: Docent's figure, the floor it is compared with, Recoll's
/// figure for the same thing, and the goal.
struct SuiteRow: Codable {
    var key: String
    var label: String
    var unit: String
    var docent: Double?
    var floor: Double?
    var floorLabel: String?
    var recoll: Double?
    /// The most (or, with `goalIsMinimum`, the least) Docent's figure may be.
    var goal: Double?
    var goalIsMinimum = false

    var meetsGoal: Bool? {
        guard let goal, let docent else { return nil }
        return goalIsMinimum ? docent >= goal : docent <= goal
    }
}

/// The whole run's figures, printed as a Markdown table or as JSON.
struct SuiteReport: Codable {
    var date: String
    var machine: String
    var corpus: String
    var files: Int
    var bytes: Int64
    var runs: Int
    var rows: [SuiteRow] = []
    var notes: [String] = []

    mutating func add(_ row: SuiteRow) { rows.append(row) }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    func markdown() -> String {
        var lines = [
            "Docent benchmark, \(date), \(machine).",
            "Corpus: \(corpus), \(files) files, \(Self.number(Double(bytes) / 1e9, unit: "GB")); medians of \(runs) runs unless noted.",
            "",
            "| what | Docent | floor | Docent ÷ floor | Recoll | Recoll ÷ Docent | goal |",
            "|---|---:|---|---:|---:|---:|---|",
        ]
        for row in rows {
            let docent = row.docent.map { Self.number($0, unit: row.unit) } ?? "–"
            let floor = row.floor.map { "\(row.floorLabel ?? "") \(Self.number($0, unit: row.unit))" } ?? ""
            let floorRatio = Self.ratio(row.docent, over: row.floor)
            let recoll = row.recoll.map { Self.number($0, unit: row.unit) } ?? ""
            let recollRatio = Self.ratio(row.recoll, over: row.docent)
            var goal = ""
            if let g = row.goal {
                goal = (row.goalIsMinimum ? "≥ " : "≤ ") + Self.number(g, unit: row.unit)
                goal += row.meetsGoal == true ? " ✓" : " ✗"
            }
            lines.append("| \(row.label) | \(docent) | \(floor) | \(floorRatio) | \(recoll) | \(recollRatio) | \(goal) |")
        }
        if !notes.isEmpty { lines += [""] + notes.map { "- " + $0 } }
        return lines.joined(separator: "\n")
    }

    /// The floor row whose time measures the machine's pace: libmagic over the whole corpus on
    /// both cores, CPU-bound work much like an index's.
    static let paceLabel = "file --mime-type (xargs -P2)"

    /// What a later run is checked against: Docent's figure for each row label of the Markdown
    /// tables in `markdown` whose second column is Docent's (this report's own table, or the
    /// README's shorter one), and the machine's pace, the figure of the row whose label holds
    /// `paceLabel` (in this report's table it is in the floor column). Cells that hold no
    /// single figure ("–", a range) are left out.
    static func baseline(markdown: String) -> Baseline {
        var baseline = Baseline()
        var docentTable = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("|"), cells.count >= 2 else { docentTable = false; continue }
            if cells[1] == "Docent" { docentTable = true; continue }
            guard docentTable, !cells[0].isEmpty else { continue }
            // The first table to give a row wins: a file's latest run comes first (docs/Benchmarks.md).
            if cells[0].contains(paceLabel) {
                baseline.pace = baseline.pace ?? cells.dropFirst().lazy.compactMap(figure).first
            } else if baseline.figures[cells[0]] == nil, let value = figure(cells[1]) {
                baseline.figures[cells[0]] = value
            }
        }
        return baseline
    }

    /// The number of a cell that holds one figure ("7.26 s", "1,083 MB"), else nil.
    private static func figure(_ cell: String) -> Double? {
        let parts = cell.replacingOccurrences(of: ",", with: "").split(separator: " ")
        guard parts.count <= 2, let first = parts.first else { return nil }
        return Double(first)
    }

    /// A table's figures and the machine's pace when it was made (see `baseline(markdown:)`).
    struct Baseline {
        var figures: [String: Double] = [:]
        /// Seconds of the `paceLabel` floor, when the table has it.
        var pace: Double?
    }

    /// This run's pace over the baseline's (1.2: this machine took 20% longer over the same
    /// floor), when both have it: times are compared after scaling the baseline's by it, so a
    /// slower or faster machine than the table's own is not taken for a change in Docent.
    func paceFactor(against baseline: Baseline) -> Double? {
        guard let before = baseline.pace, before > 0,
              let now = rows.first(where: { $0.label == Self.paceLabel })?.floor, now > 0 else { return nil }
        return now / before
    }

    /// The rows of this run more than `tolerance` (0.25: 25%) worse than `baseline`'s figure
    /// with the same label: slower, larger, more memory — or, for a minimum goal, less. Times
    /// (seconds, milliseconds) are compared at this machine's pace (`paceFactor`).
    func regressions(against baseline: Baseline, tolerance: Double) -> [String] {
        let pace = paceFactor(against: baseline) ?? 1
        return rows.compactMap { row in
            guard let now = row.docent, let figure = baseline.figures[row.label], figure > 0 else { return nil }
            let before = row.unit == "s" || row.unit == "ms" ? figure * pace : figure
            let worse = row.goalIsMinimum ? now < before * (1 - tolerance) : now > before * (1 + tolerance)
            guard worse else { return nil }
            return "\(row.label): \(Self.number(now, unit: row.unit)), was \(Self.number(before, unit: row.unit))"
                + (before == figure ? "" : " at this machine's pace (\(Self.number(figure, unit: row.unit)) in the table)")
                + String(format: " (%+.0f%%)", (now / before - 1) * 100)
        }
    }

    /// How many of this run's rows `baseline` has a figure for.
    func compared(with baseline: Baseline) -> Int { rows.filter { $0.docent != nil && baseline.figures[$0.label] != nil }.count }

    static func number(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "–" }
        let digits = value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f"
        return String(format: digits, value) + (unit.isEmpty ? "" : " " + unit)
    }

    /// `a ÷ b` as "2.50×", or nothing when either is missing.
    static func ratio(_ a: Double?, over b: Double?) -> String {
        guard let a, let b, b > 0, (a / b).isFinite else { return "" }
        return String(format: a / b >= 10 ? "%.0f×" : "%.2f×", a / b)
    }

    /// "Debian GNU/Linux 12 (bookworm), 2 cores, 24 GB, Intel …": what the figures were measured on.
    static func describeMachine() -> String {
        var parts: [String] = []
        if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
           let line = release.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) {
            parts.append(line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        parts.append("\(ProcessInfo.processInfo.activeProcessorCount) cores")
        parts.append(String(format: "%.0f GB memory", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824))
        if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            parts.append(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return parts.joined(separator: ", ")
    }
}
