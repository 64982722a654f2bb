public import ContentTypes
public import DocumentModel
import Foundation

/// JSON: validated, its head re-indented, its top-level keys listed; its strings are the
/// text the index stores.
public struct JSONDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.json] }
    public static var writableContentTypes: [UTType] { [.plainText, .json] }

    /// The scan's findings.
    let scan: JSONScanner
    /// Why the file is not valid JSON, if it is not.
    public let syntaxError: String?
    /// Whether only the file's head was read (validity then covers the head only).
    public let isPartial: Bool
    let source: Data

    public init(configuration: ReadConfiguration) throws {
        let source = try configuration.contents(), isPartial = configuration.file.isTruncated
        (self.source, self.isPartial) = (source, isPartial)
        var scanner = JSONScanner()
        do {
            try source.withUnsafeBytes { raw in
                Result { () throws(JSONScanner.SyntaxError) in try scanner.scan(raw.bindMemory(to: UInt8.self), isComplete: !isPartial) }
            }.get()
            syntaxError = nil
        } catch {
            syntaxError = error.description
        }
        scan = scanner
        if scan.kind == nil, DecodedText(source, isComplete: !isPartial) == nil { throw DocumentReadError.notText }
    }

    /// The top-level value's kind (`object`, `array`, …), if the scan got that far.
    public var kind: String? { scan.kind?.rawValue }
    /// The top-level object's keys, in file order.
    public var topLevelKeys: [String] { scan.topLevelKeys }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata()
        metadata.append("Valid", isPartial && syntaxError == nil ? .text("unknown (only the head was read)") : .boolean(syntaxError == nil))
        metadata.append("Top level", kind.map(MetadataValue.text))
        if scan.kind == .object || scan.kind == .array {
            metadata.append(scan.kind == .object ? "Keys" : "Elements", .integer(scan.topLevelCount))
        }
        metadata.append("Depth", scan.maximumDepth > 0 ? .integer(scan.maximumDepth) : nil)
        if let syntaxError { metadata.problems.append(DocumentProblem(.error, kind: .invalidJSON, syntaxError)) }
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        configuration.contentType == .json ? FileWrapper(regularFileWithContents: source) : .text(scan.strings.joined(separator: "\n"))
    }

    /// JSON's viewing group: validity, shape, keys and the re-indented head.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: JSONDocument.self) { configuration in
            let document = configuration.document
            Note.problems(document.metadata.problems)
            Metadata(document.metadata.fields)
            if !document.topLevelKeys.isEmpty {
                Section("Top-level keys") { Text(document.topLevelKeys.joined(separator: ", ")) }
            }
            if !document.scan.prettyHead.isEmpty {
                CodeBlock(document.scan.prettyHead, language: "json")
                if document.scan.prettyHeadIsCut { Note("Showing the first \(document.scan.headLines) lines.") }
            }
        }
    }
}
