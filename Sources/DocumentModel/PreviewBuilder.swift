/// Builds preview elements from a block of statements, in the spirit of SwiftUI's
/// `ViewBuilder`: components, `if`, `if let`, `switch` and `for` all work.
@resultBuilder
public enum PreviewBuilder {
    /// A preview element's elements.
    public static func buildExpression(_ content: some PreviewContent) -> [PreviewElement] { content.previewElements }
    /// One element.
    public static func buildExpression(_ element: PreviewElement) -> [PreviewElement] { [element] }
    /// Elements, as they are.
    public static func buildExpression(_ elements: [PreviewElement]) -> [PreviewElement] { elements }
    /// Elements one after the other.
    public static func buildBlock(_ parts: [PreviewElement]...) -> [PreviewElement] { parts.flatMap { $0 } }
    /// Elements under `if`, or none.
    public static func buildOptional(_ part: [PreviewElement]?) -> [PreviewElement] { part ?? [] }
    /// The first branch of an `if`–`else`.
    public static func buildEither(first part: [PreviewElement]) -> [PreviewElement] { part }
    /// The second branch of an `if`–`else`.
    public static func buildEither(second part: [PreviewElement]) -> [PreviewElement] { part }
    /// Elements made by a `for` loop, in order.
    public static func buildArray(_ parts: [[PreviewElement]]) -> [PreviewElement] { parts.flatMap { $0 } }
    /// Elements under `if #available`.
    public static func buildLimitedAvailability(_ part: [PreviewElement]) -> [PreviewElement] { part }
}

/// Something that can stand in a preview builder block.
public protocol PreviewContent {
    /// The elements it contributes.
    var previewElements: [PreviewElement] { get }
}

/// The document's title.
public struct Title: PreviewContent {
    let text: String
    /// A title.
    public init(_ text: String) { self.text = text }
    public var previewElements: [PreviewElement] { [.title(text)] }
}

/// A heading (level 1…6).
public struct Heading: PreviewContent {
    let level: Int, text: String
    /// A heading of `level` (1 the highest).
    public init(_ text: String, level: Int = 1) {
        self.text = text
        self.level = min(6, max(1, level))
    }
    public var previewElements: [PreviewElement] { [.heading(level: level, text)] }
}

/// A paragraph of plain text.
public struct Text: PreviewContent {
    let text: String
    /// A paragraph of text.
    public init(_ text: String) { self.text = text }
    public var previewElements: [PreviewElement] { [.text(text)] }
}

/// Verbatim text, with its language when known (`swift`, `python`, `json`).
public struct CodeBlock: PreviewContent {
    let language: String?, code: String
    /// Code, coloured as `language` (a highlight.js name) when given.
    public init(_ code: String, language: String? = nil) {
        self.code = code
        self.language = language
    }
    public var previewElements: [PreviewElement] { [.code(language: language, code)] }
}

/// A table: a header row and rows of cells.
public struct Table: PreviewContent {
    let header: [String], rows: [[String]]
    /// A table of `rows` under `header`.
    public init(header: [String] = [], rows: [[String]]) {
        self.header = header
        self.rows = rows
    }
    public var previewElements: [PreviewElement] { [.table(header: header, rows: rows)] }
}

/// Key–value metadata; nil values are left out.
public struct Metadata: PreviewContent {
    let fields: [MetadataField]
    /// Fields from pairs; a nil value leaves its field out.
    public init(_ pairs: KeyValuePairs<String, MetadataValue?>) {
        fields = pairs.compactMap { key, value in value.map { MetadataField(key: key, value: $0) } }
    }
    /// These fields.
    public init(_ fields: [MetadataField]) { self.fields = fields }
    public var previewElements: [PreviewElement] { fields.isEmpty ? [] : [.metadata(fields)] }
}

/// A list: each element the builder yields is one item.
public struct List: PreviewContent {
    let ordered: Bool, items: [[PreviewElement]]
    /// A list of the items `content` makes, numbered when `ordered`.
    public init(ordered: Bool = false, @PreviewBuilder _ content: () -> [PreviewElement]) {
        self.ordered = ordered
        items = content().map { [$0] }
    }
    /// A list of `items`, numbered when `ordered`.
    public init(ordered: Bool = false, items: [[PreviewElement]]) {
        self.ordered = ordered
        self.items = items
    }
    public var previewElements: [PreviewElement] { items.isEmpty ? [] : [.list(ordered: ordered, items: items)] }
}

/// A reference to an image.
public struct Image: PreviewContent {
    let reference: ImageReference
    /// An image from `source` (a data URL or a path the viewer serves), described by `alternativeText`.
    public init(_ source: String, alternativeText: String? = nil, width: Int? = nil, height: Int? = nil) {
        reference = ImageReference(source: source, alternativeText: alternativeText, width: width, height: height)
    }
    public var previewElements: [PreviewElement] { [.image(reference)] }
}

/// A titled group of elements.
public struct Section: PreviewContent {
    let title: String, content: [PreviewElement]
    /// A section titled `title`, holding `content`.
    public init(_ title: String, @PreviewBuilder _ content: () -> [PreviewElement]) {
        self.title = title
        self.content = content()
    }
    public var previewElements: [PreviewElement] { content.isEmpty ? [] : [.section(title: title, content)] }
}

/// A note to the reader: an error, a warning, or information.
public struct Note: PreviewContent {
    let severity: DocumentProblem.Severity?, text: String
    /// A note, with the severity of a problem when it reports one.
    public init(_ text: String, severity: DocumentProblem.Severity? = nil) {
        self.text = text
        self.severity = severity
    }
    /// A note for each of a document's problems.
    public static func problems(_ problems: [DocumentProblem]) -> [PreviewElement] {
        problems.map { .note($0.severity, $0.message) }
    }
    public var previewElements: [PreviewElement] { [.note(severity, text)] }
}
