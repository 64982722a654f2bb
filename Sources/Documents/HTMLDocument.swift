import CLibXML2
import ContentTypes
import DocumentModel
import Foundation

/// HTML, parsed by libxml2's forgiving HTML parser: title, text without markup, headings
/// and link count.
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
    /// The document's language (`<html lang>`).
    public let language: String?

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
            (title, text, linkCount, headings, language) = (nil, "", 0, [], nil)
            return
        }
        LibXML.initialize()
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        let document = data.withUnsafeBytes { raw in
            htmlReadMemory(raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(min(raw.count, Int(Int32.max))),
                           nil, nil, options)
        }
        guard let document else { throw DocumentReadError(LibXML.lastError() ?? "not HTML") }
        defer { xmlFreeDoc(document) }

        var title: String?, language: String?
        var lines: [String] = [], line = ""
        var links = 0
        var headings: [(Int, String)] = []
        func endLine() {
            let collapsed = line.collapsingWhitespace
            if !collapsed.isEmpty { lines.append(collapsed) }
            line = ""
        }
        // An iterative walk over the tree: parent and sibling pointers, no recursion.
        var node = xmlDocGetRootElement(document)
        while let current = node {
            var descend = true
            let element = current.pointee.type == XML_ELEMENT_NODE
            let name = element ? (LibXML.string(current.pointee.name)?.lowercased() ?? "") : ""
            if element {
                if name == "title", title == nil {
                    title = Self.textContent(current)?.collapsingWhitespace
                }
                if name == "html", let lang = Self.attribute(current, "lang") { language = lang }
                if name == "a", xmlHasProp(current, "href") != nil { links += 1 }
                if name.count == 2, name.first == "h", let level = Int(name.dropFirst()), (1...6).contains(level) {
                    if let text = Self.textContent(current)?.collapsingWhitespace, !text.isEmpty { headings.append((level, text)) }
                }
                if Self.hidden.contains(name) { descend = false }
                if Self.blocks.contains(name) { endLine() }
            } else if current.pointee.type == XML_TEXT_NODE || current.pointee.type == XML_CDATA_SECTION_NODE {
                line += LibXML.string(current.pointee.content) ?? ""
            }
            if descend, let child = current.pointee.children {
                node = child
                continue
            }
            // Next sibling, or the nearest ancestor's next sibling.
            var cursor: UnsafeMutablePointer<xmlNode>? = current
            node = nil
            while let at = cursor {
                if at.pointee.type == XML_ELEMENT_NODE,
                   let n = LibXML.string(at.pointee.name)?.lowercased(), Self.blocks.contains(n) { endLine() }
                if let next = at.pointee.next { node = next; break }
                let parent = at.pointee.parent
                cursor = parent.flatMap { $0.pointee.type == XML_ELEMENT_NODE ? $0 : nil }
            }
        }
        endLine()
        self.title = title.flatMap { $0.isEmpty ? nil : $0 } ?? headings.first?.1
        self.text = lines.joined(separator: "\n")
        self.linkCount = links
        self.headings = headings
        self.language = language
    }

    static func textContent(_ node: UnsafeMutablePointer<xmlNode>) -> String? {
        guard let content = xmlNodeGetContent(node) else { return nil }
        defer { docent_xml_free(content) }
        return LibXML.string(content)
    }

    static func attribute(_ node: UnsafeMutablePointer<xmlNode>, _ name: String) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { docent_xml_free(value) }
        return LibXML.string(value)
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title)
        metadata.append("Language", language.map(MetadataValue.text))
        metadata.append("Links", .integer(linkCount))
        metadata.append("Headings", .integer(headings.count))
        metadata.append("Words", .integer(text.wordCount))
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// HTML's viewing group: title, counts, and the text's first paragraphs.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: HTMLDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            let head = document.text.head(lines: 40, characters: 4_000)
            for paragraph in head.text.split(separator: "\n") { Text(String(paragraph)) }
            if head.isCut { Note("Showing the beginning of the text.") }
        }
    }
}
