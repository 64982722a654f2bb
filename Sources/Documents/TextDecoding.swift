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
            if let base = text.baseAddress, let first = memchr(base, 0, text.count) {
                guard Self.hasStrayNULs(text, first: UnsafeRawPointer(first) - UnsafeRawPointer(base)) else { return nil }
                // Text with a stray NUL or two (GNU grep's manual holds two, in an example):
                // each shown as U+FFFD, which no word holds.
                var clean: [UInt8] = []
                clean.reserveCapacity(text.count + 64)
                var i = 0
                while i < text.count {
                    if text[i] != 0 {
                        clean.append(text[i])
                    } else if i + 1 < text.count, text[i + 1] == 0x08 {
                        i += 1  // an info file's cookie (`^@^H[index^@^H]`): markup, dropped
                    } else {
                        clean += [0xEF, 0xBF, 0xBD]
                    }
                    i += 1
                }
                return clean.withUnsafeBufferPointer { clean in
                    String(validating: clean, as: UTF8.self).map { ($0, "UTF-8") } ?? Self.mixed(clean)
                }
            }
            if let utf8 = String(validating: text, as: UTF8.self) { return (utf8, "UTF-8") }
            // Not UTF-8 throughout: Latin-1 maps every byte, so require it to look like text
            // (few C0 controls).
            let controls = text.lazy.filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C }.count
            guard controls * 100 <= text.count else { return nil }
            return Self.mixed(text)
        }
        guard let decoded else { return nil }
        (string, encoding) = decoded
    }

    /// Whether NULs in `bytes` (the first at `first`) are strays in a text rather than a sign
    /// of binary: none in the first 8,000 bytes (where `git` and `diff` look for one to call a
    /// file binary), and at most one in 4,096 bytes of the whole. A NUL before a backspace is
    /// GNU info's markup (`^@^H[index^@^H]`), not a stray.
    static func hasStrayNULs(_ bytes: UnsafeBufferPointer<UInt8>, first: Int) -> Bool {
        var strays = 0
        for i in first..<bytes.count where bytes[i] == 0 && (i + 1 == bytes.count || bytes[i + 1] != 0x08) {
            if i < 8_000 { return false }
            strays += 1
        }
        return strays * 4_096 <= bytes.count
    }

    /// Bytes that are not UTF-8 throughout: each valid UTF-8 sequence as it is, each other
    /// byte as the Latin-1 character it is. A Latin-1 file comes out as Latin-1, and a UTF-8
    /// file with a few stray bytes (a changelog that took one Latin-1 entry) keeps its UTF-8
    /// text searchable instead of turning every accented letter into two. Written straight
    /// into the string's storage, sized by a first pass: no array of scalars (four bytes for
    /// each byte read) on the way.
    static func mixed(_ bytes: UnsafeBufferPointer<UInt8>) -> (string: String, encoding: String) {
        var size = 0, sequences = 0, strays = 0
        Self.scanMixed(bytes) { length, stray in
            size += stray ? 2 : length
            if stray { strays += 1 } else if length > 1 { sequences += 1 }
        }
        let string = String(unsafeUninitializedCapacity: size) { out in
            var at = 0, from = 0
            Self.scanMixed(bytes) { length, stray in
                if stray {
                    let byte = bytes[from]
                    out[at] = 0xC0 | byte >> 6
                    out[at + 1] = 0x80 | byte & 0x3F
                    at += 2
                } else {
                    for k in 0..<length { out[at + k] = bytes[from + k] }
                    at += length
                }
                from += stray ? 1 : length
            }
            return at
        }
        return (string, sequences > strays ? "UTF-8" : "ISO-8859-1")
    }

    /// Walks `bytes` as UTF-8: `visit(length, false)` for each valid sequence (1–4 bytes, as
    /// Unicode's well-formed table allows: no overlong forms, surrogates or values past
    /// U+10FFFF), `visit(1, true)` for a byte that begins none.
    private static func scanMixed(_ bytes: UnsafeBufferPointer<UInt8>, _ visit: (Int, Bool) -> Void) {
        var i = 0
        let n = bytes.count
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 {
                visit(1, false)
                i += 1
                continue
            }
            let length: Int, low: UInt8, high: UInt8
            switch lead {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xE1...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            default: (length, low, high) = (0, 0, 0)
            }
            var valid = length > 0 && i + length <= n && (low...high).contains(bytes[i + 1])
            var k = 2
            while valid && k < length {
                valid = bytes[i + k] & 0xC0 == 0x80
                k += 1
            }
            if valid {
                visit(length, false)
                i += length
            } else {
                visit(1, true)
                i += 1
            }
        }
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
package struct DocumentReadError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }

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
