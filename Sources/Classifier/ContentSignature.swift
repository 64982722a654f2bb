import ContentTypes

/// Cheap confirmations of what a name says, so that libmagic's full battery of tests runs
/// only where the name could be wrong or is not specific enough.
///
/// A name is confirmed when the bytes carry its format's signature (a PNG named `.png`),
/// or, for a text type, when the bytes are text (then resolution would let the name win
/// anyway: see `ContentTypeResolver`). Containers whose content can be more specific than
/// their name (zip, OLE2) are never confirmed this way.
enum ContentSignature {
    /// Signatures by canonical MIME type: each is a list of (offset, bytes) alternatives.
    static let signatures: [String: [(Int, [UInt8])]] = [
        "image/png": [(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])],
        "image/jpeg": [(0, [0xFF, 0xD8, 0xFF])],
        "image/gif": [(0, Array("GIF87a".utf8)), (0, Array("GIF89a".utf8))],
        "image/bmp": [(0, Array("BM".utf8))],
        "image/tiff": [(0, [0x49, 0x49, 0x2A, 0x00]), (0, [0x4D, 0x4D, 0x00, 0x2A])],
        "image/vnd.microsoft.icon": [(0, [0x00, 0x00, 0x01, 0x00])],
        "image/webp": [(8, Array("WEBP".utf8))],
        "audio/x-wav": [(8, Array("WAVE".utf8))],
        "application/pdf": [(0, Array("%PDF-".utf8))],
        "application/gzip": [(0, [0x1F, 0x8B])],
        "application/x-bzip": [(0, Array("BZh".utf8))],
        "application/x-xz": [(0, [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])],
        "application/zstd": [(0, [0x28, 0xB5, 0x2F, 0xFD])],
        "font/ttf": [(0, [0x00, 0x01, 0x00, 0x00]), (0, Array("true".utf8))],
        "font/otf": [(0, Array("OTTO".utf8))],
        "font/woff": [(0, Array("wOFF".utf8))],
        "font/woff2": [(0, Array("wOF2".utf8))],
        "application/x-python-bytecode": [(2, [0x0D, 0x0A])],
    ]

    /// What confirmed the name, or nil when libmagic must decide.
    static func confirm(_ candidate: NameCandidate, bytes: [UInt8], registry: UTTypeRegistry) -> String? {
        guard !bytes.isEmpty, let mime = candidate.mimeType else { return nil }
        if let alternatives = signatures[mime] {
            for (offset, signature) in alternatives where bytes.count >= offset + signature.count {
                if bytes[offset..<(offset + signature.count)].elementsEqual(signature) { return "signature" }
            }
            return nil
        }
        let isText = candidate.type.conforms(to: UTType.text(in: registry)) || registry.mimeType(mime, isA: "text/plain")
        if isText, looksLikeText(bytes) { return "text" }
        return nil
    }

    /// Whether `bytes` read as text: no NUL byte, and valid UTF-8 (a sequence cut at the end
    /// of the prefix allowed), or mostly printable as a single-byte encoding.
    static func looksLikeText(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b -> Bool in
            var i = 0, high = 0, control = 0
            let n = b.count
            var validUTF8 = true
            while i < n {
                let c = b[i]
                if c == 0 { return false }
                if c < 0x80 {
                    if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D && c != 0x0C && c != 0x1B { control += 1 }
                    i += 1
                    continue
                }
                high += 1
                let length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0
                if length == 0 { validUTF8 = false; i += 1; continue }
                if i + length > n { break }  // cut by the prefix limit
                var ok = true
                for k in 1..<length where b[i + k] & 0xC0 != 0x80 { ok = false }
                if !ok { validUTF8 = false; i += 1; continue }
                i += length
            }
            if control * 100 > n { return false }
            return validUTF8 || high * 10 < n  // Latin-1 and friends: some accented letters in text
        }
    }
}
