import Foundation
import Testing
import TestSupport

/// OCR with Tesseract: a page of text drawn by Chromium with a real font, as a PNG and as a
/// PDF holding only that picture (no text layer), found by a word on it when `ocr.enabled`.
@Suite("OCR: scanned pages found by their words")
struct OCRTests {
    let dir: TemporaryDirectory
    var root: String { dir.path + "/tree" }
    var env: [String: String] {
        ["XDG_DATA_HOME": dir.path + "/data", "XDG_CACHE_HOME": dir.path + "/cache", "DOCENT_CONFIG_DIR": dir.path + "/config"]
    }

    init() throws {
        dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.path + "/config", withIntermediateDirectories: true)
        // The page: Chromium draws it with the system's DejaVu Serif, then prints a page
        // holding nothing but that picture.
        try """
            <!DOCTYPE html><html><head><meta charset="utf-8"></head>
            <body style="background: white; margin: 40px; width: 900px; font: 28px 'DejaVu Serif', serif">
            <p>The quarterly report of the Zanzibar lighthouse keepers describes a remarkable aurora seen over the harbour.</p>
            <p>Maintenance of the lantern mechanism was completed before the storm season.</p></body></html>
            """.write(toFile: dir.path + "/page.html", atomically: true, encoding: .utf8)
        try chromium(["--hide-scrollbars", "--window-size=1000,400", "--screenshot=" + root + "/scan.png", "file://" + dir.path + "/page.html"])
        try "<!DOCTYPE html><html><body style=\"margin: 0\"><img src=\"file://\(root)/scan.png\" style=\"width: 100%\"></body></html>"
            .write(toFile: dir.path + "/picture.html", atomically: true, encoding: .utf8)
        try chromium(["--no-pdf-header-footer", "--print-to-pdf=" + root + "/scanned.pdf", "file://" + dir.path + "/picture.html"])
        try "a note about nothing in particular\n".write(toFile: root + "/note.txt", atomically: true, encoding: .utf8)
    }

    func chromium(_ arguments: [String]) throws {
        let r = try runTool("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu"] + arguments)
        #expect(r.status == 0)
    }

    func configure(_ yaml: String) throws {
        try yaml.write(toFile: dir.path + "/config/config.yaml", atomically: true, encoding: .utf8)
    }

    func index() throws -> [String: Any] {
        let r = try Docent.run(["index", "--json", root], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(r.jsonLines.first)
    }

    func search(_ query: String) throws -> [String] {
        try Docent.run(["search", query, "--files"], environment: env).stdout.split(separator: "\n")
            .map { String($0.dropFirst(root.count + 1)) }.sorted()
    }

    func ocrStatus() throws -> [String: Any] {
        let status = try #require(try Docent.run(["status", "--json"], environment: env).jsonLines.first)
        return try #require(status["ocr"] as? [String: Any])
    }

    @Test("Off: nothing is read from pictures. On: the PNG and the image-only PDF are found by a word on them, once read, never twice")
    func onAndOff() throws {
        // The PDF has no text of its own: only OCR can find it.
        #expect(try runTool("/usr/bin/pdftotext", [root + "/scanned.pdf", "-"]).output.filter { $0 > 32 }.isEmpty)

        _ = try index()
        #expect(try search("lighthouse").isEmpty, "OCR is off by default")
        #expect(try ocrStatus()["enabled"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/cache/docent/ocr"), "off: Tesseract never ran")

        // On: the pictures' readers changed, so their files are read again; the text file is not.
        try configure("ocr:\n  enabled: true\n  languages: [eng]\n")
        let on = try index()
        #expect(on["indexed"] as? Int == 2, "\(on)")
        #expect(try search("lighthouse") == ["scan.png", "scanned.pdf"])
        #expect(try search("\"lantern mechanism\"") == ["scan.png", "scanned.pdf"])
        #expect(try search("aurora harbour") == ["scan.png", "scanned.pdf"])
        #expect(try search("giraffe").isEmpty)
        var status = try ocrStatus()
        #expect(status["enabled"] as? Bool == true && status["files"] as? Int == 2 && status["pages"] as? Int == 2, "\(status)")
        let seconds = try #require(status["seconds"] as? Double)

        // A copy (a new file with the same bytes, read) and a move: found, and no OCR run again.
        try FileManager.default.copyItem(atPath: root + "/scan.png", toPath: root + "/copy.png")
        try FileManager.default.moveItem(atPath: root + "/scanned.pdf", toPath: root + "/moved.pdf")
        #expect(try index()["indexed"] as? Int == 1)
        #expect(try search("lighthouse") == ["copy.png", "moved.pdf", "scan.png"])
        status = try ocrStatus()
        #expect(status["files"] as? Int == 2 && status["seconds"] as? Double == seconds, "\(status)")
        // A new index of the same files (the old one removed): the cache answers for all.
        try FileManager.default.removeItem(atPath: dir.path + "/data")
        _ = try index()
        #expect(try search("lighthouse") == ["copy.png", "moved.pdf", "scan.png"])
        #expect(try ocrStatus()["seconds"] as? Double == seconds)

        // Off again: the pictures are read again without OCR, and are not found by their words.
        try configure("ocr:\n  enabled: false\n")
        _ = try index()
        #expect(try search("lighthouse").isEmpty)
        #expect(try search("particular") == ["note.txt"])
    }

    @Test("Hostile pictures with OCR on: a truncated PNG, a PNG that is noise, a PDF cut short — each a row, the run goes on")
    func hostile() throws {
        try configure("ocr:\n  enabled: true\n")
        let png = try Data(contentsOf: URL(fileURLWithPath: root + "/scan.png"))
        try png.prefix(png.count / 3).write(to: URL(fileURLWithPath: root + "/truncated.png"))
        var noise = png.prefix(64)
        for i in 0..<100_000 { noise.append(UInt8(truncatingIfNeeded: i &* 2654435761 >> 13)) }
        try noise.write(to: URL(fileURLWithPath: root + "/noise.png"))
        let pdf = try Data(contentsOf: URL(fileURLWithPath: root + "/scanned.pdf"))
        try pdf.prefix(pdf.count / 2).write(to: URL(fileURLWithPath: root + "/cut.pdf"))
        let summary = try index()
        #expect(summary["indexed"] as? Int == 6, "\(summary)")
        #expect(try search("lighthouse").contains("scan.png"))
    }

    @Test("A language without its data is refused when the settings are read, with the package to install")
    func missingLanguage() throws {
        try configure("ocr:\n  enabled: true\n  languages: [eng, klingon]\n")
        let r = try Docent.run(["index", root], environment: env)
        #expect(r.status == 2)
        #expect(r.stderr.contains("no Tesseract language data for `klingon`") && r.stderr.contains("tesseract-ocr-klingon"), "\(r.stderr)")
    }
}
