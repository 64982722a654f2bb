public import ContentTypes
public import DocumentModel
import Foundation

/// PostScript (`.ps`, `.eps`, also compressed: `manual.ps.gz`): what its Document Structuring
/// Conventions comments say — title, creator, author (`%%For`), date, pages, bounding box — and
/// no text. PostScript is a program: its words are what it draws, known only by running it
/// (Ghostscript's work, not Docent's), and its source is operators and encoded strings.
/// shared-mime-info makes it a kind of plain text, so it was indexed as its code (valgrind's
/// manual: 4.3 million tokens of it); it is now findable by its name, title and fields.
public struct PostScriptDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] {
        ["com.adobe.postscript", "com.adobe.encapsulated-postscript"].compactMap { UTType($0) }
    }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// What the DSC comments say.
    package let comments: PostScriptComments

    public init(configuration: ReadConfiguration) throws {
        guard let comments = PostScriptComments(try configuration.contents()) else {
            throw DocumentReadError("no %! header: not PostScript")
        }
        self.comments = comments
    }

    public var metadata: DocumentMetadata { comments.metadata }

    /// No text: the index holds the title and fields.
    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text("") }

    /// PostScript's viewing group: its title and fields, and why there is no text.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: PostScriptDocument.self) { configuration in
            let document = configuration.document
            if let title = document.comments.title { Title(title) }
            Metadata(document.metadata.fields)
            Note(PostScriptComments.noText)
        }
    }
}

/// The Document Structuring Conventions' header comments of a PostScript program (`%%Title:`,
/// `%%Creator:`, …), those left to the trailer (`(atend)`) read from it. A DOS EPS file's
/// binary header is followed to its PostScript part.
package struct PostScriptComments: Sendable, Hashable {
    package var title: String?
    package var creator: String?
    package var author: String?
    package var created: String?
    package var pages: Int?
    package var boundingBox: String?
    /// `EPSF` when the header says it is Encapsulated PostScript.
    package var isEncapsulated = false

    static let noText = "PostScript's text is not read: it is drawn by running the program. Its name, title and fields are indexed."
    /// Bytes looked at for the header, and at the end for a trailer.
    static let window = 65_536

    init?(_ data: Data) {
        var bytes = data
        // A DOS EPS binary header: the PostScript section's offset and length, little-endian.
        if bytes.starts(with: [0xC5, 0xD0, 0xD3, 0xC6]), bytes.count >= 12 {
            let base = bytes.startIndex
            func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[base + at + $1]) << (8 * $1) } }
            let (offset, length) = (word(4), word(8))
            guard offset >= 12, offset < bytes.count else { return nil }
            bytes = bytes[(base + offset)..<(base + min(bytes.count, offset + length))]
        }
        guard bytes.starts(with: Array("%!".utf8)) else { return nil }
        let head = Self.lines(bytes.prefix(Self.window))
        isEncapsulated = head.first?.contains("EPSF") ?? false
        var values: [String: String] = [:]
        var deferred: Set<String> = []
        for line in head.dropFirst() {
            guard line.hasPrefix("%") else { break }
            if line.hasPrefix("%%EndComments") { break }
            guard let (key, value) = Self.comment(line), values[key] == nil else { continue }
            if value == "(atend)" { deferred.insert(key) } else { values[key] = value }
        }
        if !deferred.isEmpty {
            let tail = Self.lines(bytes.suffix(Self.window))
            if let trailer = tail.lastIndex(where: { $0.hasPrefix("%%Trailer") }) {
                for line in tail[trailer...] {
                    if let (key, value) = Self.comment(line), deferred.contains(key) { values[key] = value }
                }
            }
        }
        // dvips titles a program by its input's name (`gnuplot.dvi`): no title, as with PDFs.
        title = values["Title"].flatMap(Self.text).flatMap { PDFDocument.isLeftoverName($0) ? nil : $0 }
        creator = values["Creator"].flatMap(Self.text)
        author = values["For"].flatMap(Self.text)
        created = values["CreationDate"].flatMap(Self.text)
        pages = values["Pages"].flatMap { Int($0.split(separator: " ").first ?? "") }
        boundingBox = values["BoundingBox"].flatMap { $0.isEmpty ? nil : $0 }
    }

    package var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title)
        metadata.append("Kind", .text(isEncapsulated ? "Encapsulated PostScript" : "PostScript"))
        metadata.append("Creator", creator.map(MetadataValue.text))
        metadata.append("Author", author.map(MetadataValue.text))
        metadata.append("Created", created.map(MetadataValue.text))
        metadata.append("Pages", pages.map(MetadataValue.integer))
        metadata.append("Bounding box", boundingBox.map(MetadataValue.text))
        return metadata
    }

    /// `%%Key: value` → (Key, value); nil for other lines.
    private static func comment(_ line: String) -> (String, String)? {
        guard line.hasPrefix("%%"), let colon = line.firstIndex(of: ":") else { return nil }
        let key = String(line[line.index(line.startIndex, offsetBy: 2)..<colon])
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return (key, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// A comment's value as text: a PostScript string `(…)` unwrapped and its escapes read;
    /// nil when nothing is left.
    private static func text(_ value: String) -> String? {
        var value = value
        if value.hasPrefix("("), value.hasSuffix(")"), value.count >= 2 {
            var out = ""
            var escaped = false
            for character in value.dropFirst().dropLast() {
                if escaped { out.append(character == "n" ? " " : character); escaped = false } else if character == "\\" { escaped = true } else { out.append(character) }
            }
            value = out
        }
        let collapsed = value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return collapsed.isEmpty ? nil : String(collapsed.prefix(500))
    }

    /// Lines of `bytes` (CR, LF or CRLF), read as UTF-8, or Latin-1 where they are not.
    private static func lines(_ bytes: Data) -> [String] {
        bytes.split(omittingEmptySubsequences: true) { $0 == 0x0A || $0 == 0x0D }.map { line in
            String(validating: line, as: UTF8.self) ?? String(line.map { Character(Unicode.Scalar($0)) })
        }
    }
}
