import CSnippet
import CZstd
import Foundation
import GRDB

/// How the index stores a file's text: compressed with Zstandard at level 1 (about 3 times
/// smaller on the benchmark corpus, at several hundred MB/s each way), read back through
/// `docent_inflate` in the `files_text` view that FTS5 uses for snippets.
///
/// Format: one byte, 0 for the text as it is, 1 for a Zstandard frame (which records the
/// text's length) after it, 2 for a long text in blocks: a table (each block's compressed
/// size, text size, and the tokens before it) and a frame per block (`docent_store_blocks`
/// in blocks.c), so that `docent_snippet` starts reading at the block that holds its window.
enum StoredText {
    /// Texts shorter than this are stored as they are (a frame's header costs more than it saves).
    static let smallest = 96
    /// Texts at least this long are stored in blocks of `blockSize`: a snippet deep in a 6 MB
    /// text then decompresses and counts one block, not everything before it. Independent
    /// blocks cost a little compression (about 2% on the corpus's long texts).
    static let blockedFrom = 256 << 10
    static let blockSize = 128 << 10

    static func deflate(_ text: String) -> Data {
        var text = text
        return text.withUTF8 { bytes -> Data in
            guard bytes.count >= smallest else { return Data([0]) + Data(bytes) }
            if bytes.count >= blockedFrom {
                var stored: UnsafeMutablePointer<UInt8>?
                var length = 0
                let rc = bytes.withMemoryRebound(to: CChar.self) {
                    docent_store_blocks($0.baseAddress, $0.count, blockSize, 1, &stored, &length)
                }
                if rc == 0, let stored {  // else (one block, or a failure) one frame says the same
                    defer { free(stored) }
                    return Data(bytes: stored, count: length)
                }
            }
            // Compressed into scratch space as large as the worst case, then copied out at its
            // own size: a Data shrunk in place keeps its whole allocation, and a batch holds hundreds.
            let capacity = ZSTD_compressBound(bytes.count)
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: 1 + capacity, alignment: 1)
            defer { scratch.deallocate() }
            let written = ZSTD_compress(scratch + 1, capacity, bytes.baseAddress, bytes.count, 1)
            guard ZSTD_isError(written) == 0, written < bytes.count else { return Data([0]) + Data(bytes) }
            scratch.storeBytes(of: 1, as: UInt8.self)
            return Data(bytes: scratch, count: 1 + written)
        }
    }

    /// The size in bytes of the text compressed `data` holds, as its frames record it; nil when
    /// they do not say.
    private static func textSize(_ data: Data, framesStart start: Int) -> UInt64? {
        data.withUnsafeBytes { raw -> UInt64? in
            let frame = UnsafeRawBufferPointer(rebasing: raw[start...])
            let size = data.first == 2 ? blocksTextSize(raw) : ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
            return size < UInt64(UInt32.max) ? size : nil  // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are the two largest values
        }
    }

    /// The text `data` holds ("" for no bytes); nil for bytes that are not a stored text —
    /// a damaged index.
    static func inflate(_ data: Data) -> String? {
        guard let method = data.first else { return "" }
        if method == 0 { return String(decoding: data.dropFirst(), as: UTF8.self) }
        guard let start = framesStart(data) else { return nil }
        return data.withUnsafeBytes { raw -> String? in
            let frame = UnsafeRawBufferPointer(rebasing: raw[start...])
            // Method 2's frames follow each other: decompressed in one call, to the table's total.
            guard let size = textSize(data, framesStart: start) else { return nil }  // a stored text is < 4 GB
            var failed = false
            let text = String(unsafeUninitializedCapacity: max(Int(size), 1)) { (buffer: UnsafeMutableBufferPointer<UInt8>) -> Int in
                let produced = ZSTD_decompress(buffer.baseAddress, Int(size), frame.baseAddress, frame.count)
                failed = ZSTD_isError(produced) != 0 || produced != Int(size)
                return failed ? 0 : produced
            }
            return failed ? nil : text
        }
    }

    /// The first `limit` bytes of the text `data` holds, cut back to whole characters: a
    /// stored text decompressed only as far as that (a 16 MB text's first line costs
    /// microseconds, not a whole decompression). Nil for bytes that are not a stored text.
    static func inflate(_ data: Data, prefix limit: Int) -> String? {
        guard let method = data.first else { return "" }
        if method == 0 { return wholeCharacters(Array(data.dropFirst().prefix(limit))) }
        guard let start = framesStart(data) else { return nil }
        // The whole text when it fits: decompressed in one call to its size, never to `limit`'s.
        if let size = textSize(data, framesStart: start), size <= UInt64(max(limit, 0)) { return inflate(data) }
        guard let stream = ZSTD_createDStream() else { return nil }
        defer { ZSTD_freeDStream(stream) }
        var output = [UInt8](repeating: 0, count: max(limit, 0))
        let produced = data.withUnsafeBytes { raw -> Int? in
            output.withUnsafeMutableBytes { out -> Int? in
                var input = ZSTD_inBuffer(src: raw.baseAddress! + start, size: raw.count - start, pos: 0)
                var buffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                while buffer.pos < buffer.size {
                    let result = ZSTD_decompressStream(stream, &buffer, &input)
                    if ZSTD_isError(result) != 0 { return nil }
                    // A frame ended: the text did, unless another block's frame follows.
                    if result == 0 && input.pos == input.size { break }
                    if result == 0 { continue }
                    // All input read, room left, and the frame still wants more: it is cut short.
                    if input.pos == input.size && buffer.pos < buffer.size { return nil }
                }
                return buffer.pos
            }
        }
        guard let produced else { return nil }
        return wholeCharacters(Array(output.prefix(produced)))
    }

    /// Where the first frame starts: after the method byte, and for method 2 after its table;
    /// nil for a method or a table that is not a stored text's.
    private static func framesStart(_ data: Data) -> Int? {
        switch data.first {
        case 1: return 1
        case 2:
            guard data.count >= 5 else { return nil }
            let blocks = data.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 1, as: UInt32.self))) }
            let start = 5 + blocks * 12
            return blocks > 0 && start < data.count ? start : nil
        default: return nil
        }
    }

    /// Method 2's text size: the sum of its table's text sizes.
    private static func blocksTextSize(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        let blocks = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 1, as: UInt32.self)))
        return (0..<blocks).reduce(0) { $0 + UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 5 + $1 * 12 + 4, as: UInt32.self))) }
    }

    /// `bytes` as text, leaving out a character the cut split.
    private static func wholeCharacters(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        // Back over continuation bytes to the last lead byte; drop it if its sequence is short.
        var start = end - 1
        while start >= 0, start > end - 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        if start >= 0 {
            let lead = bytes[start]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if end - start < length { end = start }
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// `docent_inflate(blob, n)`: the first `n` bytes of the text, for a preview line.
    static let inflatePrefixFunction = DatabaseFunction("docent_inflate", argumentCount: 2, pure: true) { values in
        guard let data = Data.fromDatabaseValue(values[0]) else { return "" }
        let limit = Int.fromDatabaseValue(values[1]) ?? 0
        guard let text = inflate(data, prefix: max(0, limit)) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a stored text is damaged")
        }
        return text
    }

    /// `docent_inflate(blob)`: the view's way to the text. Bytes that are not a stored text
    /// fail the statement with SQLITE_CORRUPT, so a damaged text is reported as a damaged
    /// index (and repaired) rather than read as "".
    static let inflateFunction = DatabaseFunction("docent_inflate", argumentCount: 1, pure: true) { values in
        guard let data = Data.fromDatabaseValue(values[0]) else { return "" }
        guard let text = inflate(data) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a stored text is damaged")
        }
        return text
    }

    /// `docent_deflate(text)`: used by the migration that moved the text out of FTS5.
    static let deflateFunction = DatabaseFunction("docent_deflate", argumentCount: 1, pure: true) { values in
        deflate(String.fromDatabaseValue(values[0]) ?? "")
    }
}
