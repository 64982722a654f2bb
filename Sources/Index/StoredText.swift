import CZlib
import Foundation
import GRDB

/// How the index stores a file's text: compressed with zlib (level 1, about 3.6 times smaller on
/// the benchmark corpus at over 100 MB/s), read back through `docent_inflate` in the
/// `files_text` view that FTS5 uses for snippets.
///
/// Format: one byte, 0 for the text as it is, 1 for zlib; after a 1 the text's length (4 bytes,
/// little-endian), then the zlib stream.
enum StoredText {
    /// Texts shorter than this are stored as they are (zlib's header costs more than it saves).
    static let smallest = 96

    static func deflate(_ text: String) -> Data {
        var text = text
        return text.withUTF8 { bytes -> Data in
            guard bytes.count >= smallest, bytes.count < Int(UInt32.max) else { return Data([0]) + Data(bytes) }
            var capacity = compressBound(uLong(bytes.count))
            var out = Data(count: 5 + Int(capacity))
            let status = out.withUnsafeMutableBytes { raw -> Int32 in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                return compress2(base + 5, &capacity, bytes.baseAddress, uLong(bytes.count), 1)
            }
            guard status == Z_OK, Int(capacity) + 5 < bytes.count + 1 else { return Data([0]) + Data(bytes) }
            let length = UInt32(bytes.count)
            out[0] = 1
            for i in 0..<4 { out[1 + i] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(i))) }
            out.count = 5 + Int(capacity)
            return out
        }
    }

    /// The text `data` holds; "" for nothing, or for bytes that are not a stored text.
    static func inflate(_ data: Data) -> String {
        guard let method = data.first else { return "" }
        if method == 0 { return String(decoding: data.dropFirst(), as: UTF8.self) }
        guard method == 1, data.count >= 5 else { return "" }
        let length = (1...4).reduce(0) { $0 | Int(data[data.startIndex + $1]) << (8 * ($1 - 1)) }
        return data.withUnsafeBytes { raw -> String in
            let source = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + 5
            return String(unsafeUninitializedCapacity: max(length, 1)) { (buffer: UnsafeMutableBufferPointer<UInt8>) -> Int in
                var produced = uLong(length)
                let status = uncompress(buffer.baseAddress, &produced, source, uLong(data.count - 5))
                return status == Z_OK ? Int(produced) : 0
            }
        }
    }

    /// `docent_inflate(blob)`: the view's way to the text.
    static let inflateFunction = DatabaseFunction("docent_inflate", argumentCount: 1, pure: true) { values in
        guard let data = Data.fromDatabaseValue(values[0]) else { return "" }
        return inflate(data)
    }

    /// `docent_deflate(text)`: used by the migration that moved the text out of FTS5.
    static let deflateFunction = DatabaseFunction("docent_deflate", argumentCount: 1, pure: true) { values in
        deflate(String.fromDatabaseValue(values[0]) ?? "")
    }
}
