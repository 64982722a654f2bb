import Foundation

/// Text out of office XML parts, streamed (`XMLStream`): paragraphs become lines, cells are
/// separated by tabs. Element names are matched by local name, whatever the prefix.
enum XMLText {
    /// Streams `bytes`, calling `visit` with each node and the local names of the elements
    /// open around it (outermost first).
    private static func walk(_ bytes: [UInt8], _ visit: (XMLStream.Node, [String], XMLStream) throws -> Void) throws {
        guard let stream = XMLStream(bytes) else { throw DocumentReadError("the XML could not be read") }
        var open: [String] = []
        while let node = try stream.next() {
            if node.type == 1 {  // element start: it sits at `depth`
                if open.count > node.depth { open.removeLast(open.count - node.depth) }
                open.append(node.localName)
            }
            let ancestors = Array(open.prefix(node.type == 1 ? node.depth : min(open.count, node.depth)))
            try visit(node, ancestors, stream)
        }
    }

    /// Collects lines: `text` appends to the current line, `endLine` closes it.
    private struct Lines {
        var lines: [String] = []
        var line = ""
        mutating func endLine() {
            if !line.isEmpty { lines.append(line) }
            line = ""
        }
        mutating func finish() -> String {
            endLine()
            return lines.joined(separator: "\n")
        }
    }

    /// A WordprocessingML or DrawingML part: `t` runs, `tab`, `br`; a line per paragraph.
    static func ooxml(_ bytes: [UInt8]) throws -> String {
        var lines = Lines()
        try walk(bytes) { node, ancestors, _ in
            switch node.type {
            case 1:
                switch node.localName {
                case "p": lines.endLine()
                case "tab": lines.line += "\t"
                case "br", "cr": lines.endLine()
                default: break
                }
            case 15 where node.localName == "p": lines.endLine()
            case 3, 4, 14: if ancestors.last == "t" { lines.line += node.value ?? "" }
            default: break
            }
        }
        return lines.finish()
    }

    /// The shared strings of a workbook, in order.
    static func sharedStrings(_ bytes: [UInt8]) throws -> [String] {
        var strings: [String] = []
        try walk(bytes) { node, ancestors, _ in
            if node.type == 1, node.localName == "si" { strings.append("") }
            if node.type == 3 || node.type == 4 || node.type == 14, ancestors.last == "t", ancestors.contains("si"), !ancestors.contains("rPh"), !strings.isEmpty {
                strings[strings.count - 1] += node.value ?? ""
            }
        }
        return strings
    }

    /// A worksheet's cells: a line per row, a tab between cells; shared strings resolved.
    static func worksheet(_ bytes: [UInt8], shared: [String]) throws -> String {
        var lines = Lines()
        var cellType: String?
        var cells: [String] = []
        try walk(bytes) { node, ancestors, stream in
            if node.type == 1, node.localName == "c" {
                cellType = stream.attribute("t")
                cells.append("")
            } else if node.type == 15, node.localName == "row" {
                lines.line = cells.joined(separator: "\t").trimmingSpace
                lines.endLine()
                cells = []
            } else if node.type == 3, let value = node.value, !cells.isEmpty {
                if ancestors.last == "v" {
                    cells[cells.count - 1] += cellType == "s" ? Int(value).flatMap { shared.indices.contains($0) ? shared[$0] : nil } ?? "" : value
                } else if ancestors.last == "t", ancestors.contains("is") {
                    cells[cells.count - 1] += value
                }
            }
        }
        return lines.finish()
    }

    /// The values of `attribute` (a qualified name) on every element named `element`.
    static func attributes(_ bytes: [UInt8], element: String, attribute: String) throws -> [String] {
        var values: [String] = []
        try walk(bytes) { node, _, stream in
            if node.type == 1, node.localName == element, let value = stream.attribute(attribute) { values.append(value) }
        }
        return values
    }

    /// The text of the elements named `names` (core properties; ODF meta, inside `within`).
    static func fields(_ bytes: [UInt8], _ names: Set<String>, within: String? = nil) throws -> [String: String] {
        var found: [String: String] = [:]
        try walk(bytes) { node, ancestors, _ in
            guard node.type == 3, let name = ancestors.last, names.contains(name), let value = node.value,
                  within.map(ancestors.contains) ?? true else { return }
            found[name, default: ""] += value
        }
        return found.mapValues(\.trimmingSpace).filter { !$0.value.isEmpty }
    }

    /// An OpenDocument body: paragraphs and headings as lines, table cells separated by tabs,
    /// sheet names, and the number of drawing pages (slides).
    static func odf(_ bytes: [UInt8]) throws -> (text: String, tables: [String], pages: Int, isSpreadsheet: Bool) {
        var lines = Lines()
        var tables: [String] = []
        var pages = 0
        var isSpreadsheet = false
        try walk(bytes) { node, ancestors, stream in
            switch node.type {
            case 1:
                switch node.localName {
                case "spreadsheet": isSpreadsheet = true
                case "table":
                    if let name = stream.attribute("table:name") { tables.append(name) }
                case "page" where ancestors.last == "drawing" || ancestors.last == "presentation": pages += 1
                case "s": lines.line += String(repeating: " ", count: stream.attribute("text:c").flatMap { Int($0) }.map { min($0, 100) } ?? 1)
                case "tab": lines.line += "\t"
                case "line-break": lines.endLine()
                case "p", "h": if !ancestors.contains("table-cell") { lines.endLine() }
                default: break
                }
            case 15:
                switch node.localName {
                case "p", "h": if !ancestors.contains("table-cell") { lines.endLine() }
                case "table-cell": lines.line += "\t"
                case "table-row":
                    lines.line = lines.line.trimmingSpace
                    lines.endLine()
                default: break
                }
            case 3, 4, 14:
                if ancestors.contains("body"), ancestors.contains("p") || ancestors.contains("h") { lines.line += node.value ?? "" }
            default: break
            }
        }
        return (lines.finish(), tables, pages, isSpreadsheet)
    }
}
