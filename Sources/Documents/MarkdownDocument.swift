public import ContentTypes
public import DocumentModel
import Foundation

/// Markdown, read by cmark-gfm: previewed as its blocks, titled by its first heading, and
/// exported as HTML or plain text.
public struct MarkdownDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.markdown] }
    public static var writableContentTypes: [UTType] { [.plainText, .html, .markdown] }

    /// The Markdown source.
    public let source: String
    /// The first heading's text.
    public let title: String?
    /// Every heading: level and text.
    public let outline: [Outline]
    /// The rendered blocks.
    let blocks: [PreviewElement]
    let blocksAreCut: Bool

    /// One heading of the outline.
    public struct Outline: Sendable, Hashable {
        /// The heading's level (1 for `#`).
        public var level: Int
        /// The heading's text.
        public var text: String
    }

    public init(configuration: ReadConfiguration) throws {
        source = try configuration.text().string
        let markdown = CommonMark(source)
        outline = markdown.headings().map { Outline(level: $0.level, text: $0.text) }
        title = outline.first?.text
        (blocks, blocksAreCut) = markdown.elements()
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title, fields: [
            MetadataField(key: "Headings", value: .integer(outline.count)),
            MetadataField(key: "Lines", value: .integer(source.lineCount)),
        ])
        metadata.headings = outline.map(\.text)
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        switch configuration.contentType {
        case .html: .text(CommonMark(source).html())
        case .markdown: .text(source)
        default: .text(CommonMark(source).plainText())
        }
    }

    /// `headings` as nested lists: each heading's deeper headings are its item's sub-list.
    func outlineList(_ headings: ArraySlice<Outline>) -> PreviewElement {
        var items: [[PreviewElement]] = []
        var rest = headings
        while let first = rest.first {
            rest = rest.dropFirst()
            let children = rest.prefix { $0.level > first.level }
            rest = rest.dropFirst(children.count)
            items.append([.text(first.text)] + (children.isEmpty ? [] : [outlineList(children)]))
        }
        return .list(ordered: false, items: items)
    }

    /// Markdown's viewing group: the outline, then the document's blocks.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: MarkdownDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            if document.outline.count > 1 {
                Section("Outline") { document.outlineList(document.outline[...]) }
            }
            document.blocks
            if document.blocksAreCut { Note("The preview shows the first \(CommonMark.maximumElements) blocks.") }
        }
        .revision(2)  // 2: headings indexed
    }
}
