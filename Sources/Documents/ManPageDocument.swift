public import ContentTypes
public import DocumentModel
import Foundation

/// A man page's roff source (`ls.1`; compressed ones, `ls.1.gz`, come through
/// `CompressedDocument`): name, section, summary, synopsis and the rendered text (`ManPage`).
///
/// In-process: a bounded, linear Swift reader (no roff program is run).
public struct ManPageDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("org.troff.man-page") ?? .plainText] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The page; nil when the file is named as one (`notes.1`, a licence's `LGPL-2.1`) but holds
    /// none of a man page's requests.
    package let page: ManPage?
    /// The file's text, as it is, when it is not a man page: read and searched as plain text.
    package let plainText: String?

    public init(configuration: ReadConfiguration) throws {
        let data = try configuration.contents()
        guard let decoded = DecodedText(data, isComplete: !configuration.file.isTruncated) else { throw DocumentReadError.notText }
        let isPage = ManPage.looksLikeManPage(decoded.string)
        (page, plainText) = isPage ? (ManPage(decoded.string), nil) : (nil, decoded.string)
    }

    public var metadata: DocumentMetadata {
        page?.metadata ?? DocumentMetadata(title: plainText.flatMap(TextTitle.of), fields: [MetadataField(key: "Lines", value: .integer(plainText?.lineCount ?? 0))])
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(page?.text ?? plainText ?? "") }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: ManPageDocument.self) { configuration in
            let document = configuration.document
            if let manPage = document.page {
                page(manPage)
            } else {
                Note("Named as a man page, but it holds no man page's requests: shown as plain text.")
                Metadata(document.metadata.fields)
                PlainTextDocument.textHead(document.plainText ?? "")
            }
        }
        .revision(6)  // 1: no-fill macro lines and continued lines as man shows them; 2: tbl tables laid out; 3: titled as whatis says; 4: a definition ended by `.  .` (Asciidoctor's pages had no text); 5: a file named as a page that holds no roff read as plain text (was an error); 6: such a text titled as it sets out its title
    }

    /// A man page's preview (also used for compressed pages).
    @PreviewBuilder
    static func page(_ page: ManPage) -> [PreviewElement] {
        if let title = page.metadata.title { Title(title) }
        Metadata(page.metadata.fields)
        if let includes = page.includes { Note("This page includes \(includes) (an alias of that page).") }
        for (heading, text) in page.sections.prefix(12) where heading != "NAME" {
            Section(heading) {
                if heading == "SYNOPSIS" { CodeBlock(text) } else { Text(text.head(lines: 60, characters: 6_000).text) }
            }
        }
        if page.sections.count > 12 { Note("Showing the first 12 of \(page.sections.count) sections.") }
    }
}

extension ManPage {
    /// `ls(1) — list directory contents` (as `whatis` says it: the NAME line's first name, the
    /// section, the summary; a result list then says what each page is about, and the NAME
    /// line is searched as the title is) and what the page says of itself.
    public var metadata: DocumentMetadata {
        let named = names?.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 } ?? name
        let page = named.map { name in section.map { "\(name)(\($0))" } ?? name }
        let title = page.map { page in summary.map { "\(page) — \($0)" } ?? page }
        var metadata = DocumentMetadata(title: title)
        metadata.append("Name", name.map { .text($0) })
        metadata.append("Section", section.map { .text($0) })
        metadata.append("Summary", summary.map { .text($0) })
        metadata.append("Date", date.map { .text($0) })
        metadata.append("Source", source.map { .text($0) })
        metadata.append("Manual", manual.map { .text($0) })
        metadata.append("Sections", sections.isEmpty ? nil : .list(sections.map(\.heading)))
        return metadata
    }
}
