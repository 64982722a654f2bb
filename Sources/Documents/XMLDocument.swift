public import ContentTypes
public import DocumentModel
import Foundation

/// XML, streamed through libxml2's reader: root element, namespaces, element count, the
/// text of its elements, and whether it is well-formed.
public struct XMLDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.xml] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The root element's local name.
    public let rootElement: String?
    /// The root element's namespace URI.
    public let rootNamespace: String?
    /// Namespaces declared anywhere, by prefix (empty for the default), in order.
    public let namespaces: [(prefix: String, uri: String)]
    /// How many elements the document has.
    public let elementCount: Int
    /// The text of its elements, one text node per line, bounded.
    public let text: String
    /// Why the document is not well-formed, if it is not (for a truncated file, the error
    /// at the cut is not reported).
    public let syntaxError: String?

    static let textLimit = 1 << 20

    public init(configuration: ReadConfiguration) throws {
        let data = try configuration.contents()
        guard DecodedText(data, isComplete: !configuration.file.isTruncated) != nil || data.starts(with: [0x3C, 0x00])
            || data.starts(with: [0x00, 0x3C])
        else { throw DocumentReadError.notText }
        guard let stream = XMLStream([UInt8](data)) else { throw DocumentReadError("libxml2 could not start reading") }
        var root: String?, rootNamespace: String?
        var namespaces: [(String, String)] = []
        var count = 0
        var text: [String] = [], textBytes = 0
        var syntaxError: String?
        do {
            while let node = try stream.next() {
                if node.type == 1 {  // element
                    count += 1
                    if root == nil { root = node.localName; rootNamespace = node.namespaceURI }
                    if namespaces.count < 50 {
                        for declaration in stream.namespaceDeclarations()
                        where !namespaces.contains(where: { $0 == declaration }) {
                            namespaces.append(declaration)
                        }
                    }
                } else if let value = node.value?.collapsingWhitespace, !value.isEmpty, textBytes < Self.textLimit {
                    text.append(value)
                    textBytes += value.utf8.count
                }
            }
        } catch {
            if !configuration.file.isTruncated { syntaxError = "\(error)" }
        }
        rootElement = root
        self.rootNamespace = rootNamespace
        self.namespaces = namespaces
        elementCount = count
        self.text = text.joined(separator: "\n")
        self.syntaxError = syntaxError
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata()
        metadata.append("Root element", rootElement.map(MetadataValue.text))
        metadata.append("Namespace", rootNamespace.map(MetadataValue.text))
        metadata.append("Elements", .integer(elementCount))
        metadata.append("Well-formed", .boolean(syntaxError == nil))
        if let syntaxError { metadata.problems.append(DocumentProblem(.error, kind: .invalidXML, "Not well-formed: \(syntaxError)")) }
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// XML's viewing group: root, namespaces, and the first text.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: XMLDocument.self) { configuration in
            let document = configuration.document
            Note.problems(document.metadata.problems)
            Metadata(document.metadata.fields)
            if !document.namespaces.isEmpty {
                Section("Namespaces") {
                    Table(header: ["Prefix", "URI"], rows: document.namespaces.map { [$0.prefix.isEmpty ? "(default)" : $0.prefix, $0.uri] })
                }
            }
            let head = document.text.head(lines: 30, characters: 3_000)
            if !head.text.isEmpty { CodeBlock(head.text) }
        }
    }
}
