import Foundation
import SystemPackage
import TestSupport
import Testing
@testable import Classifier
@testable import ContentTypes

@Suite("Names confirmed by the bytes skip libmagic, and only then")
struct NameConfirmationTests {
    /// `printf 'hello\n' | gzip -n`
    static let gzipBytes: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9,
                                     0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00]

    static let cases: [(name: String, bytes: [UInt8], expected: String, reason: String)] = [
        ("a.png", ResolverTests.pngBytes, "public.png", "name-confirmed"),
        ("a.pdf", ResolverTests.pdfBytes, "com.adobe.pdf", "name-confirmed"),
        ("a.py", ResolverTests.text, "public.python-script", "name-confirmed"),
        ("a.pdf", ResolverTests.htmlBytes, "public.html", "content-wins-conflict"),    // no %PDF-: libmagic decides
        ("a.png", ResolverTests.text, "public.plain-text", "content-wins-conflict"),
        ("a.txt", gzipBytes, "org.gnu.gnu-zip-archive", "content-wins-conflict"),  // binary is not text
        ("a.zip", Array("PK\u{03}\u{04}".utf8) + [UInt8](repeating: 0, count: 60), "public.zip-archive", "witnesses-agree"),  // containers always go to libmagic
    ]

    @Test("Table", arguments: cases)
    func confirm(name: String, bytes: [UInt8], expected: String, reason: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/" + name
        try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let result = try Classifier().classify(FilePath(path))
        #expect(result.reason.code == reason, "\(name): \(result.reason)")
        #expect(result.contentType.identifier == expected, "\(name): \(result.reason)")
        #expect((result.magic == nil) == (reason == "name-confirmed"))
    }

    static let textCases: [([UInt8], Bool)] = [
        (Array("plain ascii\n".utf8), true),
        (Array("café, naïve — “quotes”\n".utf8), true),
        (Array("caf".utf8) + [0xE9] + Array(" au lait, une phrase assez longue en Latin-1\n".utf8), true),
        (Array("abc".utf8) + [0xE2, 0x82], true),  // a UTF-8 sequence cut by the prefix limit
        ([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00], false),
        (Array(repeating: 0x01, count: 50), false),
    ]

    @Test("What counts as text", arguments: textCases)
    func text(bytes: [UInt8], expected: Bool) {
        #expect(ContentSignature.looksLikeText(bytes) == expected)
    }
}
