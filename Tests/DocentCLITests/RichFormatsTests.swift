import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// PDF, office, archive and SQLite documents, read in the helper process, on real samples:
/// files Debian ships and files written in the test by trusted tools (pandoc, openpyxl,
/// odfpy, zip, tar, qpdf, Python's sqlite3). Hostile ones must each end as an error row
/// while the run goes on.
@Suite("Rich formats, budgets and isolation", .serialized)
final class RichFormatsTests: FormatFixture {
    @Test("Documents written by trusted tools: their words are found, their properties shown")
    func samples() throws {
        try FileManager.default.copyItem(atPath: Self.shippedPDF, toPath: root + "/spec.pdf")
        try "% Analytical Engines\n% Ada Lovelace\n\n# Notes\n\nThe engine weaves algebraic patterns.\n".write(toFile: dir.path + "/in.md", atomically: true, encoding: .utf8)
        for ext in ["docx", "odt", "pptx"] { try tool("/usr/bin/pandoc", [dir.path + "/in.md", "-s", "-o", root + "/notes." + ext]) }
        try tool(Self.python, ["-c", """
            import openpyxl; wb = openpyxl.Workbook(); ws = wb.active; ws.title = 'Budget'; ws.append(['item', 'cost'])
            ws.append(['samovar', 12.5]); wb.create_sheet('Later')['A1'] = 'remember'; wb.properties.creator = 'Grace'; wb.save('sheet.xlsx')
            """])
        try tool(Self.python, ["-c", """
            from odf.opendocument import OpenDocumentSpreadsheet; from odf.table import Table, TableRow, TableCell; from odf.text import P
            doc = OpenDocumentSpreadsheet(); t = Table(name='Inventory'); r = TableRow(); c = TableCell(); c.addElement(P(text='gramophone'))
            r.addElement(c); t.addElement(r); doc.spreadsheet.addElement(t); doc.save('stock.ods')
            """])
        try tool(Self.python, ["-c", """
            import sqlite3; c = sqlite3.connect('app.sqlite'); c.execute('create table recipes(id integer primary key, teacup text)')
            c.executemany('insert into recipes(teacup) values (?)', [('a',), ('b',), ('c',)]); c.commit(); c.close()
            """])
        _ = try dir.write("src/readme.txt", "the zither in the archive")
        _ = try dir.write("src/data.bin", bytes: (0..<4096).map { UInt8($0 % 251) })
        try tool("/usr/bin/zip", ["-qr", root + "/bundle.zip", "."], in: dir.path + "/src")
        try tool("/usr/bin/tar", ["czf", root + "/bundle.tar.gz", "."], in: dir.path + "/src")

        let before = Set(try FileManager.default.contentsOfDirectory(atPath: root))
        let summary = try index()
        let kinds = try errors()
        #expect(summary["errors"] as? Int == 0, "\(kinds)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root)) == before, "nothing written beside the files (no SQLite journal)")

        #expect(try search("\"Shared MIME-info Database\"") == ["spec.pdf"])
        #expect(try search("weaves algebraic") == ["notes.docx", "notes.odt", "notes.pptx"])
        #expect(try search("samovar") == ["sheet.xlsx"])
        #expect(try search("gramophone") == ["stock.ods"])
        #expect(try search("teacup") == ["app.sqlite"])            // column names are indexed
        #expect(try search("zither") == ["bundle.tar.gz", "bundle.zip"])
        #expect(try search("readme.txt type:archive") == ["bundle.tar.gz", "bundle.zip"])  // member names too

        let pdf = try preview("spec.pdf")
        #expect(pdf["documentType"] as? String == "PDFDocument" && field(pdf, "Pages") == "17")
        let docx = try preview("notes.docx")
        #expect(docx["title"] as? String == "Analytical Engines" && field(docx, "Author") == "Ada Lovelace")
        #expect(field(try preview("notes.pptx"), "Slides") == "2")
        let sheets = (try preview("sheet.xlsx")["metadata"] as? [[String: Any]])?.first { $0["key"] as? String == "Sheets" }?["value"]
        #expect(sheets as? [String] == ["Budget", "Later"])
        #expect(field(try preview("app.sqlite"), "Rows") == "3")
        #expect(field(try preview("bundle.tar.gz"), "Members")?.isEmpty == false)
        let text = try Docent.run(["export", root + "/notes.odt", "--as", "public.plain-text"], environment: env)
        #expect(text.status == 0 && text.stdout.contains("The engine weaves algebraic patterns."))
    }

    @Test("A PDF printed by Chromium: a word hyphenated at a line end is found whole, its title and dates are read")
    func pdfText() throws {
        // A narrow column with hyphens the page breaks the words at (explicit break points).
        let page = dir.path + "/notes.html"
        try """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>Engine notes</title></head>
            <body style="width: 9em; font: 14pt serif">On the analy-<br>tical engine of Lovelace: the card-<br>weaving Jacquard loom
            and the differ-<br>ence engine, with naïve résumé words.</body></html>
            """.write(toFile: page, atomically: true, encoding: .utf8)
        try tool("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                                       "--print-to-pdf=" + root + "/notes.pdf", "file://" + page], in: dir.path)
        #expect(try index()["errors"] as? Int == 0)
        #expect(try search("analytical") == ["notes.pdf"])
        #expect(try search("difference") == ["notes.pdf"])
        #expect(try search("analy").isEmpty && search("tical").isEmpty, "the halves are not words of their own")
        #expect(try search("résumé naive") == ["notes.pdf"])
        let preview = try preview("notes.pdf")
        #expect(preview["title"] as? String == "Engine notes")
        #expect(field(preview, "Pages") == "1")
        let created = try #require(field(preview, "Created"), "\(preview)")
        #expect(created.hasPrefix(String(Calendar(identifier: .gregorian).component(.year, from: Date()))))
    }

    @Test("Hostile files — truncated, corrupted, encrypted, a bomb — each end as a row, the run goes on")
    func hostile() throws {
        let pdf = try Data(contentsOf: URL(fileURLWithPath: Self.shippedPDF))
        try pdf.prefix(pdf.count / 2).write(to: URL(fileURLWithPath: root + "/truncated.pdf"))
        var generator = SystemRandomNumberGenerator()
        for copy in 0..<5 {  // corrupted at random offsets
            var bytes = [UInt8](pdf)
            for _ in 0..<200 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/corrupt-\(copy).pdf"))
        }
        try tool("/usr/bin/qpdf", ["--encrypt", "user", "owner", "256", "--", Self.shippedPDF, root + "/encrypted.pdf"])
        // A decompression bomb: 256 MiB of zeros, about 250 KB packed.
        #expect(truncate(try dir.write("bomb/zeros.txt", ""), 256 << 20) == 0)
        try tool("/usr/bin/tar", ["czf", root + "/bomb.tar.gz", "zeros.txt"], in: dir.path + "/bomb")
        _ = try dir.write("root/ok.txt", "an ordinary kettle")
        _ = try dir.write("root/broken.docx", "PK\u{3}\u{4} this is not really a zip")

        let summary = try index()
        #expect(summary["files"] as? Int == 10)
        let kinds = try errors()
        #expect(kinds["encrypted.pdf"] == "encrypted")
        #expect(kinds["bomb.tar.gz"] == "decompression-bomb")
        #expect(kinds["truncated.pdf"] != nil && kinds["broken.docx"] != nil, "\(kinds)")
        #expect(try search("kettle") == ["ok.txt"])
        // A second run reads nothing again: error rows count as done until the file changes.
        #expect(try index()["indexed"] as? Int == 0)
    }

    @Test("A reader that crashes, hangs, overruns its memory or meets thousands of pages costs its file a row, never the run")
    func isolation() throws {
        for name in ["crash.pdf", "hang.pdf", "greedy.pdf", "fine.pdf"] {
            try FileManager.default.copyItem(atPath: Self.shippedPDF, toPath: root + "/" + name)
        }
        // 17,000 pages: MuPDF needs far longer than the 5 s budget below to read them all
        // (18 s here; poppler read 3,400 in as long).
        try tool("/usr/bin/qpdf", ["--empty", "--pages"] + Array(repeating: Self.shippedPDF, count: 1000) + ["--", root + "/pages.pdf"])
        try "limits:\n  documentSeconds: 5\n  documentMemoryBytes: 1073741824\n".write(toFile: dir.path + "/config.yaml", atomically: true, encoding: .utf8)
        let config = ["DOCENT_CONFIG_DIR": dir.path]
        let faults = ["DOCENT_HELPER_FAULT": "crash:crash.pdf,hang:hang.pdf,allocate:greedy.pdf"]
        let result = try Docent.run(["index", root, "--json"], environment: env.merging(config) { $1 }.merging(faults) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        let kinds = try errors()
        #expect(kinds["crash.pdf"] == "crashed")
        #expect(kinds["hang.pdf"] == "time-budget")
        #expect(kinds["greedy.pdf"] == "crashed", "the memory budget stopped it")
        #expect(kinds["pages.pdf"] == "time-budget")
        #expect(kinds["fine.pdf"] == nil)
        #expect(try search("\"Shared MIME-info Database\"") == ["fine.pdf"])
        // Not tried again until they change.
        let again = try Docent.run(["index", root, "--json"], environment: env.merging(config) { $1 })
        #expect(again.jsonLines.first?["indexed"] as? Int == 0)
    }
}
