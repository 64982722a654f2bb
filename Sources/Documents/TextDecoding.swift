import DocumentModel
import Foundation

/// Bytes decoded as text: UTF-8 (with or without a byte-order mark), UTF-16 with a
/// byte-order mark, or Latin-1 when the bytes are not valid UTF-8 but hold no NULs.
struct DecodedText: Sendable {
    /// The text.
    var string: String
    /// The encoding it was read in (`UTF-8`, `UTF-16LE`, `UTF-16BE`, `ISO-8859-1`).
    var encoding: String

    /// Decodes `data`; nil when the bytes are not text (NULs or other binary in UTF-8 or Latin-1).
    ///
    /// - Parameter isComplete: false when `data` is only the file's head, so a multi-byte
    ///   character cut at the end is dropped rather than taken as invalid.
    init?(_ data: Data, isComplete: Bool = true) {
        // Read in place: no copy of the bytes, NULs found with memchr (text of up to 16 MiB
        // per file passes through here on every cold index).
        let decoded: (string: String, encoding: String)? = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
                let little = bytes[0] == 0xFF
                var units: [UInt16] = []
                units.reserveCapacity(bytes.count / 2)
                var i = 2
                while i + 1 < bytes.count {
                    units.append(little ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                    i += 2
                }
                if !isComplete, let last = units.last, (0xD800..<0xDC00).contains(last) { units.removeLast() }
                return (String(decoding: units, as: UTF16.self), little ? "UTF-16LE" : "UTF-16BE")
            }
            var body = bytes[...]
            if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
            if !isComplete { body = body.dropLast(Self.incompleteUTF8Tail(body)) }
            let text = UnsafeBufferPointer(rebasing: body)
            if let base = text.baseAddress, memchr(base, 0, text.count) != nil { return nil }
            if let utf8 = String(validating: text, as: UTF8.self) { return (utf8, "UTF-8") }
            // Not UTF-8: Latin-1 maps every byte, so require it to look like text (few C0 controls).
            let controls = text.lazy.filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C }.count
            guard controls * 100 <= text.count else { return nil }
            return (String(String.UnicodeScalarView(text.map { Unicode.Scalar($0) })), "ISO-8859-1")
        }
        guard let decoded else { return nil }
        (string, encoding) = decoded
    }

    /// How many bytes at the end of `bytes` form an incomplete UTF-8 sequence.
    static func incompleteUTF8Tail<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Int {
        var back = 0
        for byte in bytes.reversed().prefix(4) {
            back += 1
            if byte & 0xC0 == 0x80 { continue }  // continuation byte
            let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return needed > back ? back : 0
        }
        return 0
    }
}

extension String {
    /// The number of lines (a final line without a newline counts).
    var lineCount: Int {
        var text = self
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
            var count = 0, at = UnsafeRawPointer(base), left = bytes.count
            while left > 0, let found = memchr(at, 0x0A, left) {
                count += 1
                let next = UnsafeRawPointer(found) + 1
                left -= next - at
                at = next
            }
            return count + (bytes[bytes.count - 1] == 0x0A ? 0 : 1)
        }
    }

    /// The first `lines` lines, at most `characters` characters, and whether anything was cut.
    func head(lines: Int = 60, characters: Int = 8_000) -> (text: String, isCut: Bool) {
        var end = startIndex
        var seen = 0
        var count = 0
        while end < endIndex, seen < lines, count < characters {
            if self[end] == "\n" { seen += 1 }
            end = index(after: end)
            count += 1
        }
        var text = String(self[..<end])
        if text.hasSuffix("\n") { text.removeLast() }
        return (text, end < endIndex)
    }
}

/// Why a built-in document type could not read a file.
public struct DocumentReadError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static let notText = DocumentReadError("the file is not text (it holds binary bytes)")
}

extension FileDocumentReadConfiguration {
    /// The file's contents (within its read limit), or a `DocumentReadError` saying why not.
    func contents() throws -> Data {
        do { return try file.readContents() } catch { throw DocumentReadError("unreadable: \(error)") }
    }

    /// The file's contents decoded as text; throws when they are not text.
    func text() throws -> DecodedText {
        guard let text = DecodedText(try contents(), isComplete: !file.isTruncated) else { throw DocumentReadError.notText }
        return text
    }
}

extension FileWrapper {
    /// A rendition holding `text` as UTF-8.
    static func text(_ text: String) -> FileWrapper { FileWrapper(regularFileWithText: text) }
}
