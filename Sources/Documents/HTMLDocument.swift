import CLibXML2
import ContentTypes
import DocumentModel
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
        let text = try HTMLText.parse(data)
        self.title = text.title.flatMap { $0.isEmpty ? nil : $0 } ?? text.headings.first?.1
        self.text = text.lines.joined(separator: "\n")
        self.linkCount = text.links
        self.headings = text.headings
        self.language = text.language
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
