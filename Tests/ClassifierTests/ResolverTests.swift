import Testing
@testable import Classifier
@testable import ContentTypes

/// Resolution as a function of bytes and a name: no disk.
@Suite("Content against name")
struct ResolverTests {
    static let pdfBytes = Array("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".utf8)
    static let htmlBytes = Array("<!DOCTYPE html>\n<html><head><title>x</title></head><body>hi</body></html>\n".utf8)
    static let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
                                    0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89]
    static let text = Array("just some words\nand another line\n".utf8)
    static let randomBytes: [UInt8] = (0..<512).map { UInt8(truncatingIfNeeded: ($0 &* 7919) ^ ($0 >> 3) &+ 0x55) }

    static let cases: [(bytes: [UInt8], name: String, expected: String, reason: String)] = [
        (text, "notes.py", "public.python-script", "name-refines-content"),         // text/plain named .py
        (text, "x.swift", "public.swift-source", "name-refines-content"),
        (text, "data.json", "public.json", "name-over-text-guess"),                 // JSON is text, not plain text, in Apple's tree
        (htmlBytes, "paper.pdf", "public.html", "content-wins-conflict"),           // a .pdf that is really HTML
        (pdfBytes, "paper.pdf", "com.adobe.pdf", "witnesses-agree"),                // glob, magic and libmagic
        (pdfBytes, "paper", "com.adobe.pdf", "witnesses-agree"),                    // magic and libmagic
        (pngBytes, "picture.jpg", "public.png", "content-wins-conflict"),
        (text, "picture.png", "public.plain-text", "content-wins-conflict"),
        (randomBytes, "blob.png", "public.png", "content-unknown"),                  // libmagic: "data"; the name decides
        (randomBytes, "blob", "public.data", "content"),
        ([], "empty.c", "public.c-source", "empty"),
    ]

    @Test("Table of content and name evidence", arguments: cases)
    func resolve(bytes: [UInt8], name: String, expected: String, reason: String) throws {
        let result = try Classifier().classify(bytes: bytes, fileName: name)
        #expect(result.contentType.identifier == expected, "\(name): \(result.reason) (libmagic: \(result.magic?.mimeType ?? "-"))")
        #expect(result.reason.code == reason, "\(name): \(result.reason)")
    }

    @Test("libmagic's own spellings map to shared-mime-info's")
    func spellings() {
        let resolver = ContentTypeResolver()
        #expect(resolver.contentMIMEType(magicMIMEType: "text/x-script.python") == "text/x-python3")
        #expect(resolver.contentMIMEType(magicMIMEType: "text/x-shellscript") == "application/x-shellscript")
        #expect(resolver.contentMIMEType(magicMIMEType: "application/x-gzip") == "application/gzip")
        #expect(resolver.contentMIMEType(magicMIMEType: "application/vnd.ms-office") == "application/x-ole-storage")
        #expect(resolver.contentMIMEType(magicMIMEType: "inode/x-empty") == "application/x-zerosize")
        #expect(resolver.contentMIMEType(magicMIMEType: "text/plain; charset=us-ascii") == "text/plain")
    }

    @Test("Generic OLE2 content named .doc is the Word type")
    func ole() {
        let resolver = ContentTypeResolver()
        let candidates = resolver.nameCandidates(fileName: "letter.doc")
        let r = resolver.resolve(magicMIMEType: "application/vnd.ms-office", candidates: candidates, isEmpty: false)
        #expect(r.type.identifier == "com.microsoft.word.doc")
        #expect(r.reason.code == "name-refines-content")
    }

    @Test("A magic database that cannot be loaded is a clear error, not a crash")
    func badMagicDatabase() {
        #expect(throws: MagicError.self) { try Classifier(magicDatabase: "/nonexistent/magic.mgc") }
        do {
            _ = try Classifier(magicDatabase: "/nonexistent/magic.mgc")
        } catch {
            #expect(error.message.contains("libmagic-mgc"))
        }
    }
}
