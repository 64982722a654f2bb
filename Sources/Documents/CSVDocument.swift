public import ContentTypes
public import DocumentModel
import Foundation

/// Comma- or tab-separated values (RFC 4180 quoting): the header and first rows as a table,
/// row and column counts, ragged rows noted; exported as plain text or JSON.
public struct CSVDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.commaSeparatedText, .tabSeparatedText] }
    public static var writableContentTypes: [UTType] { [.plainText, .json] }

    /// The first row.
    public let header: [String]
    /// The rows after the header.
    public let rows: [[String]]
    /// The separator: `,` or a tab.
    public let separator: Character
    /// 1-based row numbers (counting the header as row 1) whose field count differs from the header's.
    public let raggedRows: [Int]
    /// Whether the file ended inside a quoted field.
    public let hasUnterminatedQuote: Bool

    public init(configuration: ReadConfiguration) throws {
        let text = try configuration.text().string
        separator = configuration.contentType.conforms(to: .tabSeparatedText) ? "\t" : ","
        let parsed = Self.parse(text, separator: separator)
        var all = parsed.rows
        if configuration.file.isTruncated, !all.isEmpty { all.removeLast() }  // the cut last row
        let header = all.first ?? []
        let rows = Array(all.dropFirst())
        self.header = header
        self.rows = rows
        raggedRows = rows.enumerated().compactMap { $0.element.count != header.count ? $0.offset + 2 : nil }
        hasUnterminatedQuote = parsed.unterminated && !configuration.file.isTruncated
    }

    /// Splits `text` into rows of fields. Quoted fields may hold separators, newlines and
    /// doubled quotes; a carriage return before a newline is dropped.
    static func parse(_ text: String, separator: Character) -> (rows: [[String]], unterminated: Bool) {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false, fieldStarted = false
        var iterator = text.makeIterator()
        var pending: Character? = nil
        while let c = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if c == "\"" {
                    let next = iterator.next()
                    if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                } else {
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"" where !fieldStarted:
                quoted = true
                fieldStarted = true
            case separator:
                row.append(field)
                field = ""
                fieldStarted = false
            case "\n", "\r\n":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
                fieldStarted = false
            case "\r":
                continue
            default:
                field.append(c)
                fieldStarted = true
            }
        }
        if fieldStarted || !row.isEmpty || !field.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return (rows, quoted)
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(fields: [
            MetadataField(key: "Rows", value: .integer(rows.count)),
            MetadataField(key: "Columns", value: .integer(header.count)),
            MetadataField(key: "Separator", value: .text(separator == "\t" ? "tab" : "comma")),
        ])
        if !raggedRows.isEmpty {
            let shown = raggedRows.prefix(10).map(String.init).joined(separator: ", ")
            metadata.problems.append(DocumentProblem(
                .warning, kind: .raggedRows,
                "\(raggedRows.count) row\(raggedRows.count == 1 ? " has" : "s have") a different number of fields than the header's \(header.count) (row\(raggedRows.count == 1 ? "" : "s") \(shown)\(raggedRows.count > 10 ? ", …" : ""))."))
        }
        if hasUnterminatedQuote {
            metadata.problems.append(DocumentProblem(.error, kind: .invalidCSV, "The file ends inside a quoted field."))
        }
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        if configuration.contentType == .json {
            let names = header.enumerated().map { $0.element.isEmpty ? "column\($0.offset + 1)" : $0.element }
            let objects = rows.map { row in
                Dictionary(row.enumerated().map { (index, value) in
                    (index < names.count ? names[index] : "column\(index + 1)", value)
                }, uniquingKeysWith: { first, _ in first })
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return FileWrapper(regularFileWithContents: try encoder.encode(objects) + Data("\n".utf8))
        }
        return .text(([header] + rows).map { $0.joined(separator: "\t") }.joined(separator: "\n"))
    }

    /// CSV's viewing group: counts, problems, and the first rows under the header.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: CSVDocument.self) { configuration in
            let document = configuration.document
            Note.problems(document.metadata.problems)
            Metadata(document.metadata.fields)
            if document.header.isEmpty {
                Note("The file is empty.")
            } else {
                Table(header: document.header, rows: Array(document.rows.prefix(20)))
                if document.rows.count > 20 { Note("Showing the first 20 of \(document.rows.count) rows.") }
            }
        }
    }
}
