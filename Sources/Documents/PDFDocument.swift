import CMuPDF
import CPoppler
public import ContentTypes
public import DocumentModel
import FileAccess
public import Foundation

/// A PDF, read with MuPDF: the text of each page in reading order (hyphens at line ends
/// joined, as `pdftotext` does), and the document information (title, author, subject,
/// keywords, dates, pages). MuPDF reads this corpus's PDFs in a third of poppler's time
/// (docs/Benchmarks.md); poppler still draws a PDF's first page for the viewer, and reads
/// the pages with right-to-left text, which MuPDF 1.21 gives in visual order without spaces.
///
/// Runs isolated (in the helper process): MuPDF is C over an untrusted format.
public struct PDFDocument: FileDocument, DocumentMetadataProviding {
    /// PDFs, and PDFs compressed by gzip (`policy.pdf.gz`, as Debian ships some manuals),
    /// decompressed here in the helper within the read budget.
    public static var readableContentTypes: [UTType] {
        [UTType("com.adobe.pdf"), UTType(mimeType: "application/x-gzpdf")].compactMap { $0 }
    }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The text of each page read (at most `pageTextLimit` bytes in all).
    public let pages: [String]
    /// The number of pages.
    public let pageCount: Int
    /// The title in its information dictionary.
    public let title: String?
    /// The author.
    public let author: String?
    /// The subject.
    public let subject: String?
    /// The keywords.
    public let keywords: String?
    /// The application that made the original.
    public let creator: String?
    /// The application that made the PDF.
    public let producer: String?
    /// When it was created.
    public let created: Date?
    /// When it was last modified.
    public let modified: Date?
    /// The PDF version (`1.7`).
    public let version: String?
    /// Whether a password is needed (then only the version is known).
    public let isEncrypted: Bool
    /// What could not be read (damaged pages, encryption).
    public let problems: [DocumentProblem]

    /// The most text taken from one PDF: pages after it are counted, not read.
    public static let pageTextLimit = 32 << 20
    /// MuPDF's cache of fonts, images and objects for one document: bounded, so that a
    /// 3,000-page manual does not leave the helper holding hundreds of MB. Text needs little of
    /// it: over the benchmark corpus's 173 PDFs, 8 MiB gives the same text in the same time as
    /// 32 MiB, and the largest process 28 MB instead of 42 (a Beamer guide's images; 4 MiB
    /// costs 10% more time).
    static let storeBytes = 8 << 20

    public init(configuration: ReadConfiguration) throws {
        guard let region = try configuration.file.mappedContents() else { throw DocumentReadError("the file is empty") }
        var problems: [DocumentProblem] = []
        if let cut = DocumentProblem.cutAtReadLimit(configuration.file) { problems.append(cut) }
        guard region.withUnsafeBytes({ $0.starts(with: [0x1F, 0x8B]) }) else {
            self = try region.withUnsafeBytes { try Self(reading: $0, problems: problems) }
            return
        }
        // Compressed: the PDF decompressed whole (MuPDF reads a PDF from its end), within the read budget.
        let inflated = Inflater.inflate(region.withUnsafeBytes { Data($0) }, limit: configuration.file.readLimit)
        guard inflated.error == nil || !inflated.output.isEmpty else {
            throw DocumentReadError("the gzip stream is damaged or cut short: \(inflated.error ?? "")")
        }
        if inflated.error != nil || inflated.hitLimit {
            problems.append(DocumentProblem(.warning, kind: .truncated, "Only the first \(inflated.output.count) bytes of the PDF were decompressed."))
        }
        self = try inflated.output.withUnsafeBytes { try Self(reading: $0, problems: problems) }
    }

    /// Reads the PDF in `raw`.
    private init(reading raw: UnsafeRawBufferPointer, problems: [DocumentProblem]) throws {
        var problems = problems
        let version = String(decoding: raw.prefix(16), as: UTF8.self).firstMatch(of: /%PDF-([0-9.]+)/).map { String($0.1) }
        let read = Read()
        var info = DocentPDFInfo()
        docent_pdf_read(raw.baseAddress, raw.count, Self.storeBytes, &info, { context, index, text, length, damaged in
            let read = Unmanaged<Read>.fromOpaque(context!).takeUnretainedValue()
            return read.page(Int(index), text.map { UnsafeRawBufferPointer(start: $0, count: length) }, damaged: damaged != 0)
        }, Unmanaged.passUnretained(read).toOpaque())
        defer { docent_pdf_info_free(&info) }
        func string(_ value: UnsafeMutablePointer<CChar>?) -> String? {
            guard let value else { return nil }
            let text = String(cString: value).trimmingWhitespaceAndNewlines
            return text.isEmpty ? nil : text
        }
        if info.pages < 0 && info.encrypted == 0 {
            throw DocumentReadError("not a readable PDF: \(string(info.error) ?? "MuPDF could not open it")")
        }
        if info.repaired != 0 {
            problems.append(DocumentProblem(.error, kind: .damaged, "The PDF is damaged: its cross-reference table had to be rebuilt to read it, and some text may be missing."))
        }
        if info.encrypted != 0 {
            problems.append(DocumentProblem(.error, kind: .encrypted, "The PDF is encrypted: a password is needed to read its text and information."))
        }
        pageCount = max(Int(info.pages), 0)
        if read.pages.count < pageCount {
            problems.append(DocumentProblem(.warning, kind: .truncated, "Text was taken from the first \(read.pages.count) of \(pageCount) pages (\(Self.pageTextLimit >> 20) MiB)."))
        }
        pages = Self.rightToLeftPagesByPoppler(read.pages, raw)
        (author, subject, keywords) = (string(info.author), string(info.subject), string(info.keywords))
        title = Self.title(string(info.title), firstPage: pages.first)
        (creator, producer) = (string(info.creator), string(info.producer))
        created = string(info.created).flatMap(Self.date)
        modified = string(info.modified).flatMap(Self.date)
        self.version = version
        isEncrypted = info.encrypted != 0
        self.problems = problems + read.problems
    }

    /// The pages as MuPDF hands them over.
    private final class Read {
        var pages: [String] = []
        var total = 0
        var problems: [DocumentProblem] = []

        /// Keeps one page's text; true (stop) once the text limit is reached.
        func page(_ index: Int, _ text: UnsafeRawBufferPointer?, damaged: Bool) -> Int32 {
            guard total < PDFDocument.pageTextLimit else { return 1 }
            if damaged { problems.append(DocumentProblem(.warning, kind: .damagedPage, "Page \(index + 1) could not be read.")) }
            let page = text.map { ExtractedText.repaired(String(decoding: $0, as: UTF8.self).trimmingWhitespaceAndNewlines) } ?? ""
            total += page.utf8.count
            pages.append(page)
            return 0
        }
    }

    /// `pages` with each page that holds Arabic or Hebrew text read again by poppler, which
    /// puts it in reading order with its spaces (MuPDF gives the glyphs as drawn).
    private static func rightToLeftPagesByPoppler(_ pages: [String], _ raw: UnsafeRawBufferPointer) -> [String] {
        func rightToLeft(_ page: String) -> Bool {
            page.unicodeScalars.contains { (0x0590...0x08FF).contains($0.value) || (0xFB1D...0xFDFF).contains($0.value) || (0xFE70...0xFEFF).contains($0.value) }
        }
        let indexes = pages.indices.filter { rightToLeft(pages[$0]) }
        guard !indexes.isEmpty else { return pages }
        let bytes = g_bytes_new_static(raw.baseAddress, gsize(raw.count))
        defer { g_bytes_unref(bytes) }
        guard let document = poppler_document_new_from_bytes(bytes, nil, nil) else { return pages }
        defer { g_object_unref(UnsafeMutableRawPointer(document)) }
        var pages = pages
        for index in indexes {
            guard let page = poppler_document_get_page(document, Int32(index)) else { continue }
            defer { g_object_unref(UnsafeMutableRawPointer(page)) }
            guard let text = poppler_page_get_text(page) else { continue }
            defer { docent_g_free(text) }
            pages[index] = String(cString: text).trimmingWhitespaceAndNewlines
        }
        return pages
    }

    /// The document's title: its information's, unless that is only the name of the file it
    /// was made from (`xcolor2.dvi`, `Microsoft Word - report.doc`, `untitled`), then the
    /// first line of its first page that reads as a title (short, with letters in it).
    static func title(_ stated: String?, firstPage: String?) -> String? {
        if let stated, !isLeftoverName(stated) { return stated }
        let lines = (firstPage ?? "").split(whereSeparator: \.isNewline).prefix(8).map { String($0).trimmingWhitespaceAndNewlines }
        return lines.first { line in
            (3...120).contains(line.count) && line.unicodeScalars.filter(\.properties.isAlphabetic).count * 2 >= line.unicodeScalars.count
        }
    }

    /// Whether a stated title is a leftover file name rather than a title.
    static func isLeftoverName(_ title: String) -> Bool {
        let lowered = title.lowercased()
        if lowered.hasPrefix("microsoft word - ") || lowered.hasPrefix("microsoft powerpoint - ") { return true }
        if ["untitled", "untitled document", "title", "document", "none"].contains(lowered) { return true }
        let extensions = ["dvi", "tex", "pdf", "ps", "eps", "doc", "docx", "odt", "rtf", "txt", "indd", "qxd", "pub", "fm", "html", "xml"]
        guard !title.contains(" "), let dot = lowered.lastIndex(of: ".") else { return false }
        return extensions.contains(String(lowered[lowered.index(after: dot)...]))
    }

    /// A PDF date (`D:YYYYMMDDHHmmSS` then `Z`, or `+HH'mm'`/`-HH'mm'`; every part after the
    /// year optional, ISO 32000-1 §7.9.4), nil when it is not one.
    static func date(_ text: String) -> Date? {
        var rest = Substring(text.hasPrefix("D:") ? text.dropFirst(2) : Substring(text))
        func number(_ digits: Int, default value: Int) -> Int? {
            let part = rest.prefix(digits)
            guard part.count == digits, part.allSatisfy(\.isASCII), let parsed = Int(part) else { return part.isEmpty ? value : nil }
            rest = rest.dropFirst(digits)
            return parsed
        }
        guard let year = number(4, default: -1), year >= 0, let month = number(2, default: 1), let day = number(2, default: 1),
              let hour = number(2, default: 0), let minute = number(2, default: 0), let second = number(2, default: 0),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var offset = 0
        if let sign = rest.first, sign == "+" || sign == "-" {
            rest = rest.dropFirst()
            let hours = number(2, default: 0) ?? 0
            if rest.first == "'" { rest = rest.dropFirst() }
            let minutes = number(2, default: 0) ?? 0
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        var components = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(secondsFromGMT: offset),
                                        year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        components.nanosecond = 0
        return components.date
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

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
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
        .revision(1)  // 1: accents drawn apart joined to their letters; titles that were file names
    }
}
