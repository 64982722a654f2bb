/// A tbl(1) table of a man page (`.TS` … `.TE`) laid out as `man` lays it out: its columns
/// aligned as its format says (left, right, centred, numeric), spanned cells across their
/// columns, text blocks (`T{` … `T}`) wrapped in their column, rules as lines. The format is
/// tbl's (Lesk, "Tbl — A Program to Format Tables", and groff's tbl(1)): options ending in
/// `;`, format lines ending in `.`, then data, `.T&` starting a new format.
struct RoffTable {
    enum Alignment { case left, right, centre, spanned }

    enum Row {
        case cells([String])
        case rule
    }

    var rows: [(row: Row, format: [Alignment])] = []

    /// The widest a text block's column is made before its text wraps.
    static let blockWidth = 48

    /// Reads the lines between `.TS` and `.TE`.
    init(_ lines: [Substring]) {
        var index = lines.startIndex
        var tab: Character = "\t"
        // Options: a first line ending in ';' (`tab(:) box center;`).
        if let first = lines.first, String(first).trimmingWhitespaceAndNewlines.hasSuffix(";") {
            if let match = first.lowercased().firstMatch(of: /tab\s*\((.)\)/) { tab = match.1.first ?? "\t" }
            index += 1
        }
        var formats: [[Alignment]] = []
        func readFormat() {
            formats = []
            while index < lines.endIndex {
                let line = String(lines[index]).trimmingWhitespaceAndNewlines
                index += 1
                for part in line.split(separator: ",") { formats.append(Self.format(part)) }
                if line.hasSuffix(".") { break }
            }
        }
        readFormat()
        var dataRow = 0
        while index < lines.endIndex {
            let line = lines[index]
            index += 1
            if line.hasPrefix(".T&") {
                readFormat()
                dataRow = 0
                continue
            }
            // A request inside the table (.sp, .ft): nothing shown; a cell may start with a dot (".5").
            if (line.hasPrefix(".") && line.dropFirst().first?.isLetter == true) || line.hasPrefix("'") { continue }
            let format = formats.isEmpty ? [] : formats[min(dataRow, formats.count - 1)]
            dataRow += 1
            let trimmed = String(line).trimmingWhitespaceAndNewlines
            if trimmed == "_" || trimmed == "=" {
                rows.append((.rule, format))
                continue
            }
            // Cells; a text block runs from `T{` at a cell's end to a line starting `T}`.
            var cells: [String] = []
            var rest = Substring(line)
            while true {
                let cell = rest.prefix { $0 != tab }
                rest = rest.dropFirst(cell.count)
                if cell.hasSuffix("T{") {
                    var block = [String(cell.dropLast(2))].filter { !$0.isEmpty }
                    while index < lines.endIndex, !lines[index].hasPrefix("T}") {
                        if let text = Self.blockLine(lines[index]) { block.append(text) }
                        index += 1
                    }
                    cells.append(block.joined(separator: " "))
                    if index < lines.endIndex {
                        rest = lines[index].dropFirst(2)
                        index += 1
                    }
                } else {
                    cells.append(cell == "\\^" || cell == "_" || cell == "=" ? "" : Escapes.render(String(cell)))
                }
                guard rest.first == tab else { break }
                rest = rest.dropFirst()
            }
            rows.append((.cells(cells), format))
        }
    }

    /// A text block's line as text: its words, a font macro's (`.B`, `.RI`) words, nothing
    /// for another request.
    static func blockLine(_ line: Substring) -> String? {
        guard line.hasPrefix(".") || line.hasPrefix("'") else { return Escapes.render(String(line)) }
        let request = line.dropFirst().drop { $0 == " " || $0 == "\t" }
        let name = request.prefix { $0 != " " && $0 != "\t" }
        let arguments = ManPage.arguments(request.dropFirst(name.count))
        switch name {
        case "B", "I", "R", "SM", "SB": return Escapes.render(arguments.joined(separator: " "))
        case "BR", "BI", "IB", "IR", "RB", "RI": return Escapes.render(arguments.joined())
        default: return nil
        }
    }

    /// One format line's columns (`lb l`, `c s s`, `r n`, `lfB lw(2i)`).
    static func format(_ line: Substring) -> [Alignment] {
        var columns: [Alignment] = []
        var characters = line.makeIterator()
        while let character = characters.next() {
            switch character.lowercased() {
            case "l", "a": columns.append(.left)
            case "r", "n": columns.append(.right)
            case "c": columns.append(.centre)
            case "s": columns.append(.spanned)
            case "^", "_", "-", "=": columns.append(.left)
            case "f":  // a font: one letter, or a name to the next space
                if let next = characters.next(), next != " ", next.isLetter, next.isLowercase || next == "(" {
                    while let more = characters.next(), more != " " {}
                }
            case "w", "m", "p", "v":  // a width, macro, size or spacing: its argument
                var depth = 0
                while let more = characters.next() {
                    if more == "(" { depth += 1 } else if more == ")" { depth -= 1 }
                    if depth == 0 && (more == ")" || more == " ") { break }
                }
            default: continue
            }
        }
        return columns
    }

    /// The table as lines of text, two spaces between columns.
    var rendered: String {
        let columns = rows.reduce(0) { count, row in
            if case .cells(let cells) = row.row { max(count, cells.count) } else { count }
        }
        guard columns > 0 else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for (row, format) in rows {
            guard case .cells(let cells) = row else { continue }
            for (column, cell) in cells.enumerated() where !Self.spans(format, after: column) {
                widths[column] = max(widths[column], min(cell.count, Self.blockWidth))
            }
        }
        let total = widths.reduce(0, +) + 2 * (columns - 1)
        var lines: [String] = []
        for (row, format) in rows {
            guard case .cells(let cells) = row else {
                lines.append(String(repeating: "─", count: total))
                continue
            }
            // Each cell's lines (a long one wrapped in its column), side by side.
            var pieces: [[String]] = []
            var column = 0
            while column < cells.count {
                var width = widths[column]
                var next = column + 1
                while Self.spans(format, after: next - 1), next < columns {
                    width += 2 + widths[next]
                    next += 1
                }
                let text = cells[column]
                let wrapped = text.count > max(width, Self.blockWidth) ? Self.wrap(text, width: max(width, 1)) : [text]
                let alignment = column < format.count ? format[column] : .left
                pieces.append(wrapped.map { Self.pad($0, to: width, alignment) })
                column = next
            }
            for line in 0..<(pieces.map(\.count).max() ?? 0) {
                let parts = pieces.enumerated().map { index, cell in
                    line < cell.count ? cell[line] : String(repeating: " ", count: cell.first?.count ?? 0)
                }
                lines.append(parts.joined(separator: "  ").trailingSpacesTrimmed)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Whether the column after `column` is spanned by it (`s` in the format).
    static func spans(_ format: [Alignment], after column: Int) -> Bool {
        column + 1 < format.count && format[column + 1] == .spanned
    }

    static func pad(_ text: String, to width: Int, _ alignment: Alignment) -> String {
        let room = max(width - text.count, 0)
        switch alignment {
        case .right: return String(repeating: " ", count: room) + text
        case .centre: return String(repeating: " ", count: room / 2) + text + String(repeating: " ", count: room - room / 2)
        case .left, .spanned: return text + String(repeating: " ", count: room)
        }
    }

    /// `text` in lines of at most `width` characters, broken between words.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines.isEmpty ? [""] : lines
    }
}

private extension String {
    var trailingSpacesTrimmed: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
