public import ContentTypes
public import DocumentModel
public import Foundation

/// Anything no other document type reads: what the file is, how big, and its first bytes
/// in hex. Directories list their entries; links give their destination; special files
/// (FIFOs, sockets, devices) are described from `lstat` and never opened.
public struct GenericDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.item] }
    public static var writableContentTypes: [UTType] { [] }

    /// The content type the file was classified as.
    public let contentType: UTType
    /// What the content evidence says (libmagic's description).
    public let contentDescription: String?
    /// The file's attributes: kind, size, dates.
    public let attributes: FileAttributes
    /// The first bytes of a regular file.
    public let head: Data
    /// A directory's entry names (sorted, at most 200).
    public let entries: [String]?
    /// A symbolic link's destination.
    public let destination: String?

    static let headBytes = 256

    public init(configuration: ReadConfiguration) throws {
        let file = configuration.file
        contentType = configuration.contentType
        contentDescription = configuration.contentDescription
        attributes = file.fileAttributes
        head = file.isRegularFile ? ((try? file.prefix(Self.headBytes)) ?? Data()) : Data()
        entries = file.isDirectory ? file.fileWrappers.map { Array($0.keys.sorted().prefix(200)) } : nil
        destination = file.symbolicLinkDestinationURL?.path
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata()
        metadata.append("Type", .text(contentType.localizedDescription ?? contentType.identifier))
        metadata.append("Description", contentDescription.map(MetadataValue.text))
        metadata.append("Kind", .text(attributes.kind.rawValue))
        if attributes.kind == .regular { metadata.append("Size", .integer(Int(attributes.size))) }
        metadata.append("Destination", destination.map(MetadataValue.text))
        metadata.append("Entries", entries.map { .integer($0.count) })
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text("") }

    /// `head` as a hex dump: offset, sixteen bytes, and their printable ASCII.
    public var hexDump: String {
        let bytes = [UInt8](head)
        return stride(from: 0, to: bytes.count, by: 16).map { offset in
            let row = bytes[offset..<min(offset + 16, bytes.count)]
            let hex = row.map { String(format: "%02x", $0) }.joined(separator: " ")
            let ascii = String(row.map { (0x20..<0x7F).contains($0) ? Character(Unicode.Scalar($0)) : "." })
            return String(format: "%08x  ", offset) + hex.padding(toLength: 47, withPad: " ", startingAt: 0) + "  " + ascii
        }.joined(separator: "\n")
    }

    /// The fallback viewing group.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: GenericDocument.self) { configuration in
            let document = configuration.document
            Metadata(document.metadata.fields)
            if let entries = document.entries, !entries.isEmpty {
                List(items: entries.map { [.text($0)] })
            }
            if !document.head.isEmpty { CodeBlock(document.hexDump, language: "hexdump") }
        }
    }
}

/// The built-in viewing groups, most specific formats first; `GenericDocument` reads
/// everything and comes last.
public enum BuiltInDocuments {
    /// Every built-in group.
    public static var groups: [DocumentGroup] {
        [
            MarkdownDocument.group, ManPageDocument.group, RTFDocument.group, JSONDocument.group, CSVDocument.group, HTMLDocument.group, XMLDocument.group,
            PhotoDocument.group, ImageDocument.group, PDFDocument.group, PostScriptDocument.group, DVIDocument.group, SourceCodeDocument.group, PlainTextDocument.group, CompressedDocument.group,
            OfficeDocument.group, EPUBDocument.group, ArchiveDocument.group, SQLiteDocument.group, MediaDocument.group, MailDocument.group,
            GenericDocument.group,
        ]
    }

    /// A registry of the built-in groups.
    package static var registry: DocumentRegistry { DocumentRegistry(groups: groups) }
}
