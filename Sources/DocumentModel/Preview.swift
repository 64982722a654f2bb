/// A document's preview: a small tree of elements that the renderers turn into plain text,
/// ANSI, HTML or JSON. A viewer builds it; it never contains markup or escape codes.
public struct Preview: Sendable, Hashable, Codable {
    /// The top-level elements, in order.
    public var elements: [PreviewElement]

    /// A preview of these elements.
    public init(elements: [PreviewElement]) { self.elements = elements }

    /// A preview built like a SwiftUI view body.
    public init(@PreviewBuilder _ content: () -> [PreviewElement]) { elements = content() }

    /// The words a reader sees, one element a line, without markup: the text a document
    /// type that gives no `public.plain-text` rendition is indexed by (notes, about how the
    /// file was read rather than what it says, are left out).
    public var plainText: String {
        var lines: [String] = []
        func add(_ elements: [PreviewElement]) {
            for element in elements {
                switch element {
                case .title(let text), .heading(_, let text), .text(let text), .code(_, let text): lines.append(text)
                case .table(let header, let rows): lines += ([header] + rows).filter { !$0.isEmpty }.map { $0.joined(separator: "\t") }
                case .metadata(let fields): lines += fields.map { "\($0.key): \($0.value)" }
                case .list(_, let items): items.forEach(add)
                case .image(let image): if let text = image.alternativeText { lines.append(text) }
                case .section(let title, let content): lines.append(title); add(content)
                case .note: break
                }
            }
        }
        add(elements)
        return lines.joined(separator: "\n")
    }

    /// The first title in the tree.
    public var title: String? {
        for element in elements { if case .title(let t) = element { return t } }
        return nil
    }
}

/// One element of a preview.
public indirect enum PreviewElement: Sendable, Hashable, Codable {
    /// The document's title, shown once at the top.
    case title(String)
    /// A heading of `level` 1…6.
    case heading(level: Int, String)
    /// A paragraph of plain text.
    case text(String)
    /// Verbatim text, such as source code, with its language when known.
    case code(language: String?, String)
    /// Rows of cells under a header row (which may be empty).
    case table(header: [String], rows: [[String]])
    /// Named values.
    case metadata([MetadataField])
    /// A list whose items are each a sequence of elements.
    case list(ordered: Bool, items: [[PreviewElement]])
    /// A picture, by reference: the renderers never embed image data.
    case image(ImageReference)
    /// A titled group of elements.
    case section(title: String, [PreviewElement])
    /// Something the reader should know about the preview: a read error, a truncation.
    case note(DocumentProblem.Severity?, String)
}

/// An image a preview refers to (a file, or a link in a document).
public struct ImageReference: Sendable, Hashable, Codable {
    /// Where the image is: a path or URL, as the document gave it.
    public var source: String
    /// Alternative text.
    public var alternativeText: String?
    /// Pixel dimensions, when known.
    public var width: Int?
    /// The image's height in pixels, when known.
    public var height: Int?

    /// An image from `source` (a data URL or a path the viewer serves), described by `alternativeText`.
    public init(source: String, alternativeText: String? = nil, width: Int? = nil, height: Int? = nil) {
        self.source = source
        self.alternativeText = alternativeText
        self.width = width
        self.height = height
    }
}
