/// Lays a table out in monospaced columns that fit a width.
struct TableLayout {
    let header: [String]
    let rows: [[String]]
    let width: Int?

    /// The widest a column gets before its cells are cut with an ellipsis.
    static let maximumColumnWidth = 40

    func lines(headerStyle: (String) -> String) -> [String] {
        let columns = max(header.count, rows.map(\.count).max() ?? 0)
        guard columns > 0 else { return [] }
        func cells(_ row: [String]) -> [String] {
            (0..<columns).map { $0 < row.count ? row[$0].terminalSafe.replacingNewlines : "" }
        }
        let head = header.isEmpty ? nil : cells(header)
        let body = rows.map(cells)
        var widths = (0..<columns).map { c in
            min(Self.maximumColumnWidth, ([head?[c]].compactMap { $0 } + body.map { $0[c] }).map(displayWidth).max() ?? 0)
        }
        if let width {
            // Shrink the widest column until the table fits (" | " between columns).
            while widths.reduce(0, +) + 3 * (columns - 1) > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                  widths[widest] > 3 {
                widths[widest] -= 1
            }
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { c, cell in fit(cell, widths[c]) }.joined(separator: " | ")
                .trimmingTrailingSpaces
        }
        var out: [String] = []
        if let head {
            out.append(headerStyle(line(head)))
            out.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
        }
        out.append(contentsOf: body.map(line))
        return out
    }

    private func fit(_ cell: String, _ width: Int) -> String {
        var cell = cell
        if displayWidth(cell) > width {
            while displayWidth(cell) > width - 1, !cell.isEmpty { cell.removeLast() }
            cell += "…"
        }
        return cell + String(repeating: " ", count: max(0, width - displayWidth(cell)))
    }
}

extension String {
    var replacingNewlines: String { split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") }
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
