import CLibXML2
public import ContentTypes
public import DocumentModel
import Foundation

/// HTML, parsed by libxml2's forgiving HTML parser (as a stream: see `HTMLText`): title, text
/// without markup, headings and link count.
public struct HTMLDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.html] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The `<title>`, or the first heading.
    public let title: String?
    /// The visible text, one block per line (no script, style or markup).
    public let text: String
    /// `<a href>` elements.
    public let linkCount: Int
    /// Headings in order: level and text.
    public let headings: [(level: Int, text: String)]
    /// The terms its definition lists define (`<dt>`), in order.
    public let terms: [String]
    /// The document's language (`<html lang>`).
    public let language: String?
    /// The text as blocks with their kind, for the preview.
    let blocks: [HTMLText.Block]

    /// Elements whose content is never text.
    static let hidden: Set<String> = ["script", "style", "noscript", "template", "head", "svg", "math"]
    /// Elements that start a new line of text.
    static let blocks: Set<String> = [
        "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "section",
        "article", "header", "footer", "table", "ul", "ol", "dl", "dt", "dd", "hr", "title", "nav", "aside", "main",
    ]

    public init(configuration: ReadConfiguration) throws {
        try self.init(html: try configuration.contents(), isComplete: !configuration.file.isTruncated)
    }

    /// Parses `data` as HTML (also an EPUB's XHTML chapters).
    init(html data: Data, isComplete: Bool = true) throws {
        guard DecodedText(data, isComplete: isComplete) != nil else { throw DocumentReadError.notText }
        guard !data.isEmpty else {
            (title, text, linkCount, headings, terms, language, blocks) = (nil, "", 0, [], [], nil, [])
            return
        }
        let text = try HTMLText.parse(data)
        self.title = text.title.flatMap { $0.isEmpty ? nil : $0 } ?? text.headings.first?.1
        self.text = text.lines.joined(separator: "\n")
        self.linkCount = text.links
        self.headings = text.headings
        self.terms = text.terms
        self.language = text.language
        self.blocks = text.blocks
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title)
        metadata.append("Language", language.map(MetadataValue.text))
        metadata.append("Links", .integer(linkCount))
        metadata.append("Headings", .integer(headings.count))
        metadata.append("Words", .integer(text.wordCount))
        // The terms a definition list defines head their definitions: searched with the headings.
        metadata.headings = headings.map(\.text) + terms
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// HTML's viewing group: title, counts, and the page's first blocks with their structure
    /// (headings, lists, preformatted text), without its navigation.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: HTMLDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            Self.structured(document.blocks, characters: 4_000)
        }
        .revision(4)  // 1: navigation and header links left out of the text; 2: headings indexed; 3: definition lists' terms indexed with them; 4: a page declaring no encoding read as UTF-8 when its bytes are
    }

    /// The first blocks, up to about `characters`, as preview elements: consecutive list
    /// items as one list; a note when the page goes on.
    static func structured(_ blocks: [HTMLText.Block], characters: Int) -> [PreviewElement] {
        var elements: [PreviewElement] = []
        var items: [[PreviewElement]] = []
        var table: (header: [String], rows: [[String]])?
        var used = 0, shown = 0
        func flush() {
            if !items.isEmpty { elements.append(.list(ordered: false, items: items)) }
            if let done = table { elements.append(.table(header: done.header, rows: done.rows)) }
            (items, table) = ([], nil)
        }
        for block in blocks {
            guard used < characters else { break }
            used += block.text.count
            shown += 1
            switch block.kind {
            case .item:
                if table != nil { flush() }
                items.append([.text(block.text)])
                continue
            case .row(let header):
                // Consecutive rows are one table; a first row of header cells is its header.
                if !items.isEmpty { flush() }
                if table == nil { table = ([], []) }
                if header, table!.header.isEmpty, table!.rows.isEmpty { table!.header = block.cells } else { table!.rows.append(block.cells) }
                continue
            case .heading(let level): flush(); elements.append(.heading(level: level, block.text))
            case .code: flush(); elements.append(.code(language: nil, block.text))
            case .text: flush(); elements.append(.text(block.text))
            }
        }
        flush()
        if shown < blocks.count { elements.append(.note(nil, "Showing the beginning of the page; the reader below has all of its text.")) }
        return elements
    }
}
