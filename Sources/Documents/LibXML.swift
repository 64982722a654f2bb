import CLibXML2

/// libxml2, set up once for use from many threads.
enum LibXML {
    private static let initialized: Bool = {
        xmlInitParser()
        docent_xml_silence()
        return true
    }()

    /// Makes sure `xmlInitParser` ran before any parse (it must run on one thread first), and
    /// that this thread's generic error channel is silent (threads that touched libxml2 before
    /// it was first silenced keep their own copy of the channel).
    static func initialize() {
        _ = initialized
        docent_xml_silence_thread()
    }

    /// A libxml2 string as a Swift string.
    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
    }

    /// The most recent libxml2 error on this thread, as "line N: message".
    static func lastError() -> String? {
        guard let error = xmlGetLastError() else { return nil }
        let message = error.pointee.message.map { String(cString: $0) }?.trimmingSpace ?? "malformed"
        return error.pointee.line > 0 ? "line \(error.pointee.line): \(message)" : message
    }
}

/// Streams an XML document's nodes through libxml2's `xmlTextReader`: no tree is built,
/// the network is never touched (`XML_PARSE_NONET`), external DTDs are not loaded and
/// entities are not substituted, so neither a billion-laughs file nor an external entity
/// can make a read expensive or reach outside the file.
final class XMLStream {
    private let reader: OpaquePointer
    private let buffer: [CChar]

    /// A node the reader stopped at.
    struct Node {
        var type: Int32
        var depth: Int
        var localName: String
        var namespaceURI: String?
        var value: String?
    }

    init?(_ bytes: [UInt8]) {
        LibXML.initialize()
        xmlResetLastError()
        buffer = bytes.map { CChar(bitPattern: $0) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        guard let reader = buffer.withUnsafeBufferPointer({
            xmlReaderForMemory($0.baseAddress, Int32(min($0.count, Int(Int32.max))), nil, nil, options)
        }) else { return nil }
        // Validity notes (an xml:id that is not a name) bypass XML_PARSE_NOERROR and would go
        // to standard error; the reader's own handler drops them (the last error is still kept).
        xmlTextReaderSetStructuredErrorHandler(reader, { _, _ in }, nil)
        self.reader = reader
    }

    deinit { xmlFreeTextReader(reader) }

    /// The next node; nil at the end. Throws the parser's message when the document is not well-formed.
    func next() throws -> Node? {
        let rc = xmlTextReaderRead(reader)
        if rc == 0 { return nil }
        if rc < 0 { throw DocumentReadError(LibXML.lastError() ?? "not well-formed XML") }
        let type = xmlTextReaderNodeType(reader)
        let hasValue = type == 3 || type == 4 || type == 14  // text, CDATA, significant whitespace (xml:space="preserve")
        return Node(
            type: type, depth: Int(xmlTextReaderDepth(reader)),
            localName: LibXML.string(xmlTextReaderConstLocalName(reader)) ?? "",
            namespaceURI: LibXML.string(xmlTextReaderConstNamespaceUri(reader)),
            value: hasValue ? LibXML.string(xmlTextReaderConstValue(reader)) : nil)
    }

    /// The value of the current element's attribute `name`.
    func attribute(_ name: String) -> String? {
        guard let value = xmlTextReaderGetAttribute(reader, name) else { return nil }
        defer { docent_xml_free(value) }
        return LibXML.string(value)
    }

    /// The `xmlns` declarations on the current element: prefix (empty for the default) and URI.
    func namespaceDeclarations() -> [(prefix: String, uri: String)] {
        var out: [(String, String)] = []
        guard xmlTextReaderMoveToFirstAttribute(reader) == 1 else { return [] }
        repeat {
            if xmlTextReaderIsNamespaceDecl(reader) == 1 {
                let name = LibXML.string(xmlTextReaderConstName(reader)) ?? ""
                let prefix = name == "xmlns" ? "" : String(name.dropFirst("xmlns:".count))
                out.append((prefix, LibXML.string(xmlTextReaderConstValue(reader)) ?? ""))
            }
        } while xmlTextReaderMoveToNextAttribute(reader) == 1
        xmlTextReaderMoveToElement(reader)
        return out
    }
}

extension String {
    /// nil for the empty string.
    var nilIfEmpty: String? { isEmpty ? nil : self }

    /// Without white space and line ends at either end, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` trims, without bridging to NSString
    /// (which copied a PDF's every page through UTF-16: 2% of a cold index's CPU). The same
    /// string when there is nothing to trim.
    var trimmingWhitespaceAndNewlines: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isSpaceOrNewline($0) }),
              let last = scalars.lastIndex(where: { !Self.isSpaceOrNewline($0) }) else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
    }

    /// Foundation's `whitespaces` (CoreFoundation's set): a tab, a space separator (Zs), or
    /// U+200B ZERO WIDTH SPACE.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\u{200B}" || (scalar.value > 0x7F && scalar.properties.generalCategory == .spaceSeparator)
    }

    /// Foundation's `whitespacesAndNewlines`: those, U+000A–U+000D, U+0085 and the line and
    /// paragraph separators.
    static func isSpaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar == " " || (scalar.value >= 0x09 && scalar.value <= 0x0D) }
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
        default: return scalar.value == 0x85 || scalar.value == 0x200B
        }
    }

    var trimmingSpace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }

    /// Runs of ASCII whitespace collapsed to one space, ends trimmed (on UTF-8 bytes: this
    /// runs over every text node).
    var collapsingWhitespace: String {
        var out: [UInt8] = []
        var pendingSpace = false
        for byte in utf8 {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(0x20) }
                pendingSpace = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The number of runs of non-whitespace (ASCII whitespace), counted on UTF-8 bytes.
    var wordCount: Int {
        var count = 0
        var inWord = false
        for byte in utf8 {
            let space = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
            if !space && !inWord { count += 1 }
            inWord = !space
        }
        return count
    }
}
