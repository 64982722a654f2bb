import ContentTypes
import DocumentModel
import Documents
import Foundation
import Rendering
import Testing
import TestSupport

/// Malformed, truncated and oversized files: each gets a preview with a note saying what is
/// wrong, never a crash or a hang.
@Suite("Hostile files")
struct HostileFilesTests {
    static let png = "/usr/share/doc/libpng-dev/examples/pngtest.png"

    /// Opens `path`, renders its preview in every format (the renderers must cope too) and
    /// returns the document.
    func openAndRender(_ path: String, readLimit: Int = FileWrapper.defaultReadLimit) async throws -> OpenedDocument {
        let document = try await open(path, readLimit: readLimit)
        for format in PreviewFormat.allCases {
            #expect(!format.renderer(width: 80, colour: true).render(document.preview()).isEmpty)
        }
        return document
    }

    // Regression (found by Fuzz/FuzzRTF): a \u parameter outside a 16-bit number trapped in
    // UInt32(_:) and crashed the indexer; it is now U+FFFD.
    @Test("RTF \\u escapes out of range become U+FFFD", arguments: [#"\u-99999999"#, #"\u4444444444"#, #"\u99999"#])
    func rtfUnicodeOutOfRange(escape: String) async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("odd.rtf", #"{\rtf1\ansi before "# + escape + #"? after\par}"#)
        let text = try await open(path).text
        #expect(text.contains("before \u{FFFD}") && text.contains("after"), "\(text)")
    }

    // Regression (found by Fuzz/FuzzImageHeader): a GIF of 13 to 23 bytes crashed the
    // reader (the search for the looping extension ran over a backwards range).
    @Test("Short GIFs (every length from 13 to 24 bytes) are read, not a crash")
    func shortGIFs() async throws {
        let dir = try TemporaryDirectory()
        let head: [UInt8] = Array("GIF89a".utf8) + [20, 0, 22, 0, 0x80, 0, 0]
        for length in 13...24 {
            let path = try dir.write("short\(length).gif", bytes: (head + Array(repeating: 0x3B, count: 16)).prefix(length))
            let document = try await open(path)
            #expect(document.field("Width") == "20", "\(length) bytes: \(document.metadata)")
        }
    }

    @Test("Malformed files get an error note and still a preview")
    func malformed() async throws {
        let dir = try TemporaryDirectory()
        let png = try Data(contentsOf: URL(fileURLWithPath: Self.png))
        let cases: [(name: String, bytes: [UInt8], documentType: String, note: String)] = [
            ("cut.png", Array(png.prefix(200)), "ImageDocument", "truncated"),
            ("headless.png", Array(png.prefix(20)), "GenericDocument", "Could not be read as public.png"),
            ("broken.json", Array(#"{"a": [1, 2,, 3]}"#.utf8), "JSONDocument", "invalid JSON at line 1, column 13"),
            ("binary.md", [0x00, 0xFF, 0x13, 0x37, 0x00, 0x01, 0x02] + Array(repeating: 0, count: 64), "GenericDocument",
             "Could not be read as net.daringfireball.markdown"),
            ("ragged.csv", Array("a,b,c\n1,2,3\n4,5\n6,7,8,9\n".utf8), "CSVDocument", "2 rows have a different number of fields"),
            ("broken.xml", Array("<?xml version=\"1.0\"?>\n<root><a></b></root>\n".utf8), "XMLDocument", "Not well-formed: line 2"),
            ("damaged.gz", gzipWithCorruptedMiddle(), "CompressedDocument", "The compressed stream is damaged"),
            ("empty.json", [], "JSONDocument", "the file holds no JSON value"),
            ("empty.png", [], "GenericDocument", "Could not be read as public.png"),
            ("deep.json", Array(repeating: UInt8(ascii: "["), count: 200_000), "JSONDocument", "200000 unclosed brackets"),
        ]
        for test in cases {
            let path = try dir.write(test.name, bytes: test.bytes)
            let document = try await openAndRender(path)
            #expect(document.documentTypeName == test.documentType, "\(test.name)")
            #expect(document.notes.contains { $0.severity != nil && $0.text.contains(test.note) },
                    "\(test.name): \(document.notes.map(\.text))")
        }
    }

    @Test("Empty files of every text type preview without an error")
    func emptyFiles() async throws {
        let dir = try TemporaryDirectory()
        for name in ["empty.txt", "empty.md", "empty.csv", "empty.html", "empty.swift"] {
            let document = try await openAndRender(try dir.write(name, ""))
            #expect(!document.notes.contains { $0.severity == .error }, "\(name): \(document.notes.map(\.text))")
        }
    }

    @Test("Deep nesting in Markdown is flattened, not recursed into")
    func deepMarkdown() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("deep.md", String(repeating: "> ", count: 10_000) + "bottom\n"
            + String(repeating: "- ", count: 10_000) + "item\n")
        let document = try await openAndRender(path)
        #expect(document.documentTypeName == "MarkdownDocument")
        #expect(try await document.text.contains("bottom"))
    }

    @Test("A file over the read budget previews its head and says it was truncated")
    func overBudget() async throws {
        let dir = try TemporaryDirectory()
        let lines = (1...20_000).map { "line \($0) of a long log" }.joined(separator: "\n")
        let path = try dir.write("long.txt", lines)
        let document = try await openAndRender(path, readLimit: 10_000)
        #expect(document.documentTypeName == "PlainTextDocument")
        #expect(document.notes.first?.severity == .warning)
        #expect(document.notes.first?.text.contains("Truncated: only the first 10000 of \(lines.utf8.count) bytes were read") == true)
        #expect(document.metadata.problems.contains { $0.kind == "truncated" })
        let text = try await document.text
        #expect(text.hasPrefix("line 1 of a long log") && text.utf8.count <= 10_000 && !text.contains("line 20000"))

        // A multi-byte character cut by the budget is dropped, not taken as binary.
        let accented = try dir.write("accents.txt", String(repeating: "é", count: 10_000))
        let cut = try await open(accented, readLimit: 1_001)
        #expect(cut.documentTypeName == "PlainTextDocument")
        #expect(cut.field("Encoding") == "UTF-8")
    }

    @Test("A gzip bomb stops at the decompression bound")
    func gzipBomb() async throws {
        let dir = try TemporaryDirectory()
        let zeros = Data(count: 40 << 20)  // 40 MiB of zeros: about 40 KiB compressed
        let bomb = try runTool("/usr/bin/gzip", ["-c", "-n"], stdin: zeros).output
        let path = try dir.write("bomb.txt.gz", bytes: bomb)
        let document = try await openAndRender(path)
        #expect(document.documentTypeName == "CompressedDocument")
        #expect(document.field("Decompressed") == String(CompressedDocument.outputLimit))
        #expect(document.notes.contains { $0.text.contains("Decompression stopped at") })
        // The same bomb in Zstandard.
        let zstd = try runTool("/usr/bin/zstd", ["-c", "-q"], stdin: zeros).output
        let other = try await openAndRender(try dir.write("bomb.txt.zst", bytes: zstd))
        #expect(other.field("Decompressed") == String(CompressedDocument.outputLimit))
        #expect(other.notes.contains { $0.text.contains("Decompression stopped at") })
    }

    /// A gzip file whose deflate stream is damaged halfway.
    func gzipWithCorruptedMiddle() -> [UInt8] {
        let text = Data((0..<5_000).map { "record \($0) with some text to compress\n" }.joined().utf8)
        var bytes = [UInt8]((try? runTool("/usr/bin/gzip", ["-c", "-n"], stdin: text).output) ?? Data())
        for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 1) { bytes[i] ^= 0x5A }
        return bytes
    }
}
