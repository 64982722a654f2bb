import CPoppler
import ContentTypes
import DocumentModel
import Foundation

/// A PDF, read with poppler (through its GLib API): the text of each page in reading
/// order, and the document information (title, author, subject, keywords, dates, pages).
///
/// Runs isolated (in the helper process): poppler is C++ over an untrusted format.
public struct PDFDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("com.adobe.pdf") ?? .data] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The text of each page read (at most `pageTextLimit` bytes in all).
    public let pages: [String]
    public let pageCount: Int
    public let title: String?, author: String?, subject: String?, keywords: String?, creator: String?, producer: String?
    public let created: Date?, modified: Date?
    public let version: String?
    /// Whether a password is needed (then only the version is known).
    public let isEncrypted: Bool
    public let problems: [DocumentProblem]

    /// The most text taken from one PDF: pages after it are counted, not read.
    public static let pageTextLimit = 32 << 20

    public init(configuration: ReadConfiguration) throws {
        guard let region = try configuration.file.mappedContents() else { throw DocumentReadError("the file is empty") }
        let header = try configuration.file.prefix(16)
        let version = String(decoding: header, as: UTF8.self).firstMatch(of: /%PDF-([0-9.]+)/).map { String($0.1) }
        var problems: [DocumentProblem] = []
        if let cut = DocumentProblem.cutAtReadLimit(configuration.file) { problems.append(cut) }
        let read = try region.withUnsafeBytes { raw throws -> Read in
            let bytes = g_bytes_new_static(raw.baseAddress, gsize(raw.count))
            defer { g_bytes_unref(bytes) }
            var error: UnsafeMutablePointer<GError>?
            guard let document = poppler_document_new_from_bytes(bytes, nil, &error) else {
                let encrypted = error.map { $0.pointee.domain == docent_poppler_error_quark() && $0.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue) } ?? false
                let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "poppler could not open it"
                if let error { g_error_free(error) }
                if encrypted { return Read.encrypted }
                throw DocumentReadError("not a readable PDF: \(message)")
            }
            defer { g_object_unref(UnsafeMutableRawPointer(document)) }
            return Read(document)
        }
        if read.encrypted {
            problems.append(DocumentProblem(.error, kind: "encrypted", "The PDF is encrypted: a password is needed to read its text and information."))
        }
        if read.stoppedAt < read.pageCount {
            problems.append(DocumentProblem(.warning, kind: "truncated", "Text was taken from the first \(read.stoppedAt) of \(read.pageCount) pages (\(Self.pageTextLimit >> 20) MiB)."))
        }
        pages = read.pages
        pageCount = read.pageCount
        (title, author, subject, keywords, creator, producer) = (read.title, read.author, read.subject, read.keywords, read.creator, read.producer)
        (created, modified) = (read.created, read.modified)
        self.version = version
        isEncrypted = read.encrypted
        self.problems = problems + read.problems
    }

    /// What poppler gave.
    private struct Read {
        var pages: [String] = []
        var pageCount = 0
        var stoppedAt = 0
        var title: String?, author: String?, subject: String?, keywords: String?, creator: String?, producer: String?
        var created: Date?, modified: Date?
        var encrypted = false
        var problems: [DocumentProblem] = []

        static var encrypted: Read {
            var read = Read()
            read.encrypted = true
            return read
        }

        init() {}

        init(_ document: OpaquePointer) {
            func string(_ value: UnsafeMutablePointer<gchar>?) -> String? {
                guard let value else { return nil }
                defer { docent_g_free(value) }
                let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
                return text.isEmpty ? nil : text
            }
            func date(_ value: OpaquePointer?) -> Date? {
                guard let value else { return nil }
                defer { g_date_time_unref(value) }
                return Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(value)))
            }
            title = string(poppler_document_get_title(document))
            author = string(poppler_document_get_author(document))
            subject = string(poppler_document_get_subject(document))
            keywords = string(poppler_document_get_keywords(document))
            creator = string(poppler_document_get_creator(document))
            producer = string(poppler_document_get_producer(document))
            created = date(poppler_document_get_creation_date_time(document))
            modified = date(poppler_document_get_modification_date_time(document))
            pageCount = Int(poppler_document_get_n_pages(document))
            var total = 0
            for index in 0..<pageCount {
                guard total < PDFDocument.pageTextLimit else { break }
                guard let page = poppler_document_get_page(document, Int32(index)) else {
                    problems.append(DocumentProblem(.warning, kind: "damaged-page", "Page \(index + 1) could not be read."))
                    pages.append("")
                    stoppedAt = index + 1
                    continue
                }
                let text = string(poppler_page_get_text(page)) ?? ""
                g_object_unref(UnsafeMutableRawPointer(page))
                total += text.utf8.count
                pages.append(text)
                stoppedAt = index + 1
            }
        }
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title, problems: problems)
        metadata.append("Pages", isEncrypted ? nil : .integer(pageCount))
        metadata.append("Encrypted", isEncrypted ? .boolean(true) : nil)
        metadata.append("Author", author.map { .text($0) })
        metadata.append("Subject", subject.map { .text($0) })
        metadata.append("Keywords", keywords.map { .text($0) })
        metadata.append("Created", created.map { .text($0.formatted(.iso8601)) })
        metadata.append("Modified", modified.map { .text($0.formatted(.iso8601)) })
        metadata.append("Creator", creator.map { .text($0) })
        metadata.append("Producer", producer.map { .text($0) })
        metadata.append("PDF version", version.map { .text($0) })
        return metadata
    }

    /// The pages' text, a form feed between pages (as `pdftotext` writes it).
    public var text: String { pages.joined(separator: "\n\u{0C}") }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The most pages shown in a preview.
    static let previewPages = 10

    public static var group: DocumentGroup {
        DocumentGroup(viewing: PDFDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            Note.problems(document.problems)
            for (index, page) in document.pages.prefix(previewPages).enumerated() where !page.isEmpty {
                Section("Page \(index + 1)") { Text(page) }
            }
            if document.pageCount > previewPages { Note("Showing the first \(previewPages) of \(document.pageCount) pages.") }
        }
        .isolated()
    }
}
