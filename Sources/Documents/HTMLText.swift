import CLibXML2
import Foundation

/// What an HTML document says, gathered from libxml2's HTML parser as a stream of SAX events:
/// no tree is built, so an 8 MB page costs its text, not the ~170 MB its DOM took.
final class HTMLText {
    var title: String?
    var language: String?
    var lines: [String] = []
    /// The same text as blocks of what they are (a heading, a list item, preformatted text),
    /// for a preview with the page's structure.
    var blocks: [Block] = []
    var links = 0
    var headings: [(Int, String)] = []
    /// The terms a definition list defines (`<dt>`): an API reference's signatures
    /// (`functools.lru_cache(user_function)`), a manual's options, a glossary's words. At most
    /// `termLimit`, each cut at `termLength` characters.
    var terms: [String] = []
    static let termLimit = 4_000, termLength = 200

    /// A block of text and what kind of element it came from.
    struct Block: Equatable {
        enum Kind: Equatable { case heading(Int), item, code, text, row(header: Bool) }
        var kind: Kind
        var text: String
        /// A table row's cells.
        var cells: [String] = []
    }

    /// The row being read (its cells so far, and whether they are all headers), inside `<tr>`.
    private var row: (cells: [String], header: Bool)?
    /// The cell being read, inside `<td>` or `<th>`.
    private var cell: String?

    /// The kind of the block being read (from the element that opened it).
    private var kind = Block.Kind.text
    /// Open `<pre>` elements: their text keeps its spaces and lines.
    private var preDepth = 0

    private var line = ""
    /// Open elements at or under the outermost hidden one (script, style, head, …); 0 outside.
    private var hiddenDepth = 0
    /// The title's text while inside `<title>` (the first one only).
    private var titleText: String?
    /// The heading being read, while inside `<h1>`…`<h6>`.
    private var heading: (level: Int, text: String)?
    /// The term being read, while inside `<dt>`.
    private var term: String?

    /// Parses `data` (complete or a head of a file) in 64 KiB chunks. Bytes that are all valid
    /// UTF-8 are read as UTF-8 when the page declares no encoding (libxml2 would read them as
    /// Latin-1, as HTML 4 said: "—" became "â€”"); a declared one still applies.
    static func parse(_ data: Data) throws -> HTMLText {
        LibXML.initialize()
        let builder = HTMLText()
        var sax = htmlSAXHandler()
        sax.startElement = { context, name, attributes in
            guard let context, let name else { return }
            Unmanaged<HTMLText>.fromOpaque(context).takeUnretainedValue().start(String(cString: name).lowercased(), attributes)
        }
        sax.endElement = { context, name in
            guard let context, let name else { return }
            Unmanaged<HTMLText>.fromOpaque(context).takeUnretainedValue().end(String(cString: name).lowercased())
        }
        let characters: charactersSAXFunc = { context, bytes, count in
            guard let context, let bytes, count > 0 else { return }
            Unmanaged<HTMLText>.fromOpaque(context).takeUnretainedValue()
                .characters(String(decoding: UnsafeBufferPointer(start: bytes, count: Int(count)), as: UTF8.self))
        }
        sax.characters = characters
        sax.cdataBlock = characters
        sax.ignorableWhitespace = characters
        let context = Unmanaged.passUnretained(builder).toOpaque()
        let encoding = String(validating: data, as: UTF8.self) != nil ? XML_CHAR_ENCODING_UTF8 : XML_CHAR_ENCODING_NONE
        guard let parser = htmlCreatePushParserCtxt(&sax, context, nil, 0, nil, encoding) else {
            throw DocumentReadError(LibXML.lastError() ?? "not HTML")
        }
        defer { htmlFreeParserCtxt(parser) }
        _ = htmlCtxtUseOptions(parser, Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
                                             | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue))
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
            var offset = 0
            while offset < raw.count {
                let count = min(65_536, raw.count - offset)
                _ = htmlParseChunk(parser, base + offset, Int32(count), 0)
                offset += count
            }
        }
        _ = htmlParseChunk(parser, nil, 0, 1)
        withExtendedLifetime(builder) {}
        builder.endLine()
        return builder
    }

    private func start(_ name: String, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        if name == "title", title == nil, titleText == nil { titleText = "" }
        if name == "html", language == nil { language = Self.attribute("lang", in: attributes) }
        if hiddenDepth > 0 { hiddenDepth += 1; return }
        if HTMLDocument.hidden.contains(name) || Self.isBoilerplate(name, attributes) { hiddenDepth = 1; return }
        if name == "a", Self.attribute("href", in: attributes) != nil { links += 1 }
        if HTMLDocument.blocks.contains(name) { endLine() }
        if name.count == 2, name.first == "h", let level = Int(name.dropFirst()), (1...6).contains(level) {
            heading = (level, "")
            kind = .heading(level)
        } else if name == "li" || name == "dt" {
            kind = .item
            if name == "dt", terms.count < Self.termLimit { term = "" }
        } else if name == "pre" {
            preDepth += 1
            kind = .code
        } else if name == "tr" {
            row = ([], true)
        } else if name == "td" || name == "th" {
            line += " "  // cells are words apart in the text ("Wally 1,200 kg", not "Wally1,200 kg")
            if row != nil {
                cell = ""
                if name == "td" { row?.header = false }
            }
        }
    }

    /// Navigation and page furniture, not the document: `<nav>`, `<aside>`, landmarks of
    /// navigation, and the classes documentation generators give it (Sphinx's "related" bar
    /// of "modules | next | previous", its sidebar and "¶" header links; breadcrumbs, skip links).
    static let boilerplateClasses: Set<String> = [
        "headerlink", "related", "sphinxsidebar", "sphinxsidebarwrapper", "navbar", "breadcrumb", "breadcrumbs", "skip-link",
        "skiplink", "navigation", "nav-links", "rst-footer-buttons", "wy-nav-side", "sidebar-drawer", "toc-drawer",
    ]

    static func isBoilerplate(_ name: String, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> Bool {
        if name == "nav" || name == "aside" { return true }
        if let role = attribute("role", in: attributes)?.lowercased(), role == "navigation" || role == "search" { return true }
        guard let classes = attribute("class", in: attributes) else { return false }
        return classes.split(whereSeparator: \.isWhitespace).contains { boilerplateClasses.contains($0.lowercased()) }
    }

    private func end(_ name: String) {
        if name == "title", let text = titleText {
            title = text.collapsingWhitespace
            titleText = nil
        }
        if hiddenDepth > 0 { hiddenDepth -= 1; return }
        if let open = heading, name == "h\(open.level)" {
            let text = open.text.collapsingWhitespace
            if !text.isEmpty { headings.append((open.level, text)) }
            heading = nil
        }
        if name == "dt", let text = term {
            let collapsed = text.collapsingWhitespace
            if !collapsed.isEmpty { terms.append(String(collapsed.prefix(Self.termLength))) }
            term = nil
        }
        if (name == "td" || name == "th"), let text = cell {
            row?.cells.append(text.collapsingWhitespace)
            cell = nil
        }
        if name == "tr", let open = row {
            kind = .row(header: open.header)
            endLine(cells: open.cells)
            row = nil
        }
        if HTMLDocument.blocks.contains(name) { endLine() }
        if name == "pre", preDepth > 0 { preDepth -= 1 }
    }

    private func characters(_ text: String) {
        if titleText != nil { titleText! += text }
        guard hiddenDepth == 0 else { return }
        line += text
        if heading != nil { heading!.text += text }
        if term != nil, term!.utf8.count < Self.termLength * 4 { term! += text }
        if cell != nil { cell! += text }
    }

    fileprivate func endLine(cells: [String] = []) {
        let collapsed = line.collapsingWhitespace
        if !collapsed.isEmpty {
            lines.append(collapsed)
            // Preformatted text keeps its lines and indentation (trailing space trimmed).
            let shown = kind == .code ? String(line.drop { $0 == "\n" || $0 == "\r" }).trimmingTrailingWhitespace : collapsed
            blocks.append(Block(kind: kind, text: shown, cells: cells))
        }
        line = ""
        if preDepth == 0 { kind = .text }
    }

    /// The value of attribute `name` in a SAX attribute list (name, value, name, value, …, NULL).
    private static func attribute(_ name: String, in attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> String? {
        guard var cursor = attributes else { return nil }
        while let key = cursor.pointee {
            let value = (cursor + 1).pointee
            if String(cString: key).lowercased() == name { return value.map { String(cString: $0) } ?? "" }
            cursor += 2
        }
        return nil
    }
}

private extension String {
    var trimmingTrailingWhitespace: String {
        var end = endIndex
        while end > startIndex, self[index(before: end)].isWhitespace { end = index(before: end) }
        return String(self[..<end])
    }
}

