public import ContentTypes
public import DocumentModel
import Foundation

/// Word, Excel and PowerPoint files (Office Open XML: `.docx`, `.xlsx`, `.pptx` and their
/// macro and template variants) and OpenDocument files (`.odt`, `.ods`, `.odp`, and the flat
/// XML `.fodt`, `.fods`, `.fodp`): the text in reading order, title, author, subject,
/// keywords, dates, sheet names, page and slide counts.
///
/// The zip container is read with libarchive and the XML streamed with libxml2 (no tree,
/// no network, no entities). Runs isolated (in the helper process).
public struct OfficeDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] {
        ["org.openxmlformats.openxml", "org.oasis-open.opendocument", "org.oasis-open.opendocument.text-flat-xml",
         "org.oasis-open.opendocument.spreadsheet-flat-xml", "org.oasis-open.opendocument.presentation-flat-xml"]
            .compactMap { UTType($0) }
    }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// What kind of office document: text, spreadsheet or presentation.
    public enum Kind: String, Sendable {
        /// A word processor's document (ODT, DOCX).
        case text = "Text document"
        /// A spreadsheet (ODS, XLSX).
        case spreadsheet = "Spreadsheet"
        /// A presentation (ODP, PPTX).
        case presentation = "Presentation"
    }

    /// Its kind.
    public var kind: Kind = .text
    /// The title in its properties.
    public var title: String?
    /// The author.
    public var author: String?
    /// The subject.
    public var subject: String?
    /// The keywords.
    public var keywords: String?
    /// When it was created, as written.
    public var created: String?
    /// When it was last modified, as written.
    public var modified: String?
    /// Its page count, when its properties say.
    public var pages: Int?
    /// Sheet names (spreadsheets), in order.
    public var sheets: [String] = []
    /// Slide count (presentations).
    public var slides: Int?
    /// The text, in reading order: paragraphs on lines, cells separated by tabs.
    public var text = ""
    /// What could not be read.
    public var problems: [DocumentProblem] = []

    public init(configuration: ReadConfiguration) throws {
        let data = try configuration.contents()
        if data.starts(with: Array("PK".utf8)) {
            let members = try data.withUnsafeBytes { raw in
                try ZipMembers(raw) { $0.hasSuffix(".xml") && !$0.hasPrefix("customXml/") }
            }
            if members.names.contains("[Content_Types].xml") {
                try readOOXML(members)
            } else if members.names.contains("content.xml") {
                try readODF(content: members.contents["content.xml"] ?? [], meta: members.contents["meta.xml"])
            } else {
                throw DocumentReadError("a zip file without the parts of an office document")
            }
            if let damage = DocumentProblem.damagedZip(members) { problems.append(damage) }
            if !members.cut.isEmpty {
                problems.append(DocumentProblem(.warning, kind: .truncated, "Parts cut at their size limit: \(members.cut.joined(separator: ", "))."))
            }
        } else {
            try readODF(content: [UInt8](data), meta: [UInt8](data))  // flat XML: one file holds both
        }
        if let cut = DocumentProblem.cutAtReadLimit(configuration.file) { problems.insert(cut, at: 0) }
    }

    // MARK: - Office Open XML

    private mutating func readOOXML(_ members: ZipMembers) throws {
        let parts = members.contents
        func numbered(_ prefix: String) -> [String] {
            parts.keys.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".xml") && !$0.dropFirst(prefix.count).contains("/") }
                .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        }
        if let document = parts["word/document.xml"] {
            kind = .text
            var pieces = [try XMLText.ooxml(document)]
            for name in numbered("word/header") + numbered("word/footer") + ["word/footnotes.xml", "word/endnotes.xml"] {
                if let part = parts[name] { pieces.append(try XMLText.ooxml(part)) }
            }
            text = pieces.filter { !$0.isEmpty }.joined(separator: "\n")
        } else if let workbook = parts["xl/workbook.xml"] {
            kind = .spreadsheet
            sheets = try XMLText.attributes(workbook, element: "sheet", attribute: "name")
            let shared = try parts["xl/sharedStrings.xml"].map { try XMLText.sharedStrings($0) } ?? []
            let worksheets = numbered("xl/worksheets/sheet")
            text = try worksheets.enumerated().map { index, name in
                let title = index < sheets.count ? sheets[index] : name
                return title + "\n" + (try XMLText.worksheet(parts[name]!, shared: shared))
            }.joined(separator: "\n\n")
        } else {
            let slideNames = numbered("ppt/slides/slide")
            guard !slideNames.isEmpty || parts["ppt/presentation.xml"] != nil else {
                throw DocumentReadError("an Office Open XML package without a document, workbook or presentation part")
            }
            kind = .presentation
            slides = slideNames.count
            text = try slideNames.map { try XMLText.ooxml(parts[$0]!) }.joined(separator: "\n\n")
        }
        if let core = parts["docProps/core.xml"] {
            let fields = try XMLText.fields(core, ["title", "creator", "subject", "keywords", "created", "modified"])
            (title, author, subject, keywords) = (fields["title"], fields["creator"], fields["subject"], fields["keywords"])
            (created, modified) = (fields["created"], fields["modified"])
        }
        if let app = parts["docProps/app.xml"] {
            let fields = try XMLText.fields(app, ["Pages", "Slides"])
            pages = fields["Pages"].flatMap { Int($0) }
            if slides == nil { slides = fields["Slides"].flatMap { Int($0) } }
        }
    }

    // MARK: - OpenDocument

    private mutating func readODF(content: [UInt8], meta: [UInt8]?) throws {
        let body = try XMLText.odf(content)
        text = body.text
        sheets = body.tables
        if body.pages > 0 {
            kind = .presentation
            slides = body.pages
        } else if body.isSpreadsheet {
            kind = .spreadsheet
        }
        if let meta {
            let fields = try XMLText.fields(meta, ["title", "creator", "initial-creator", "subject", "keyword", "creation-date", "date"], within: "meta")
            (title, subject, keywords) = (fields["title"], fields["subject"], fields["keyword"])
            author = fields["initial-creator"] ?? fields["creator"]
            (created, modified) = (fields["creation-date"], fields["date"])
            pages = try XMLText.attributes(meta, element: "document-statistic", attribute: "meta:page-count").first.flatMap { Int($0) }
        }
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title, problems: problems)
        metadata.append("Kind", .text(kind.rawValue))
        metadata.append("Author", author.map { .text($0) })
        metadata.append("Subject", subject.map { .text($0) })
        metadata.append("Keywords", keywords.map { .text($0) })
        metadata.append("Created", created.map { .text($0) })
        metadata.append("Modified", modified.map { .text($0) })
        metadata.append("Pages", pages.map { .integer($0) })
        metadata.append("Slides", slides.map { .integer($0) })
        metadata.append("Sheets", sheets.isEmpty ? nil : .list(sheets))
        metadata.append("Words", .integer(text.wordCount))
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: OfficeDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            Note.problems(document.problems)
            let head = document.text.head()
            if !head.text.isEmpty { Text(head.text) }
            if head.isCut { Note("Showing the beginning of \(document.text.lineCount) lines.") }
        }
        .isolated()
        .revision(2)  // 2: a damaged zip is reported
    }
}
