import DocumentModel
@testable import Documents
import Foundation
import Testing
import TestSupport

/// MuPDF keeps every object it parsed until the document closes; PDFDocument lets go of each
/// page's annotations after the page and of named destinations, and hides the name tree so
/// links load without their targets. None of that may change the text, and the text includes
/// what annotations draw (as pdftotext's does).
@Suite("PDF annotations and destinations let go of")
struct PDFAnnotationTests {
    @Test("Links, named destinations and annotations in object streams: every page's text, and annotation text shared by two pages on both")
    func annotationsReleased() async throws {
        let pages = 150
        let dir = try TemporaryDirectory()
        let path = try dir.write("linked.pdf", bytes: Self.linkedPDF(pages: pages))
        let document = try await open(path)
        #expect(document.documentTypeName == "PDFDocument")
        #expect(document.field("Pages") == "\(pages)")
        #expect(document.notes.allSatisfy { $0.severity == nil }, "\(document.notes)")
        let text = try await document.text
        for page in 0..<pages {
            #expect(text.contains("body\(page)word"), "page \(page)")
            if page % 10 == 3 { #expect(text.contains("stamp\(page)word"), "the FreeText annotation of page \(page)") }
        }
        // One FreeText annotation is on page 0 and again on the last page: let go of after
        // page 0, it is parsed again from its object stream for the last one.
        #expect(text.components(separatedBy: "sharedstampword").count - 1 == 2)
    }

    /// A PDF 1.5 file (ISO 32000-1): pages of Helvetica text; on each page four Link
    /// annotations to named destinations (`GoTo` actions) and on every tenth a FreeText
    /// annotation whose appearance stream draws a word; the names in a `/Names /Dests` tree
    /// of `<< /D [page /XYZ …] >>` dictionaries. Annotations and destinations live in object
    /// streams (§7.5.7), so the file has a cross-reference stream (§7.5.8).
    static func linkedPDF(pages: Int) -> [UInt8] {
        var out: [UInt8] = Array("%PDF-1.5\n%\u{E2}\u{E3}\n".utf8)
        var entries: [Int: (type: UInt8, field2: Int, field3: Int)] = [:]  // object → xref entry
        var next = 1
        func reserve() -> Int { defer { next += 1 }; return next }
        func direct(_ number: Int, _ body: String) {
            entries[number] = (1, out.count, 0)
            out += Array("\(number) 0 obj\n\(body)\nendobj\n".utf8)
        }
        func stream(_ number: Int, _ dictionary: String, _ data: String) {
            direct(number, "<< \(dictionary) /Length \(data.utf8.count) >>\nstream\n\(data)\nendstream")
        }
        // Objects that go into object streams, written once all numbers are known.
        var packed: [(number: Int, body: String)] = []

        let catalog = reserve(), pageTree = reserve(), font = reserve(), destsTree = reserve()
        let pageNumbers = (0..<pages).map { _ in reserve() }
        let shared = reserve()  // the FreeText annotation on page 0 and the last page
        let sharedAppearance = reserve()
        stream(sharedAppearance, "/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /F1 \(font) 0 R >> >>",
               "BT /F1 10 Tf 2 6 Td (sharedstampword) Tj ET")
        packed.append((shared, "<< /Type /Annot /Subtype /FreeText /Rect [300 700 500 720] /Contents (shared) /DA (/F1 10 Tf) /AP << /N \(sharedAppearance) 0 R >> >>"))
        var names: [String] = []
        for (page, number) in pageNumbers.enumerated() {
            let contents = reserve()
            stream(contents, "", (0..<20).map { "BT /F1 9 Tf 40 \(700 - $0 * 12) Td (line \($0) body\(page)word) Tj ET" }.joined(separator: "\n"))
            var annotations: [Int] = []
            for link in 0..<4 {
                let annotation = reserve(), destination = reserve()
                let name = String(format: "dest%05d.%d", page, link)
                names.append("(\(name)) \(destination) 0 R")
                packed.append((destination, "<< /D [\(pageNumbers[(page + link) % pages]) 0 R /XYZ 0 \(700 - link * 12) null] >>"))
                packed.append((annotation, "<< /Type /Annot /Subtype /Link /Border [0 0 0] /H /I /C [1 0 0] /Rect [40 \(690 - link * 12) 200 \(700 - link * 12)] /A << /S /GoTo /D (\(name)) >> >>"))
                annotations.append(annotation)
            }
            if page % 10 == 3 {
                let stamp = reserve(), appearance = reserve()
                stream(appearance, "/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /F1 \(font) 0 R >> >>",
                       "BT /F1 10 Tf 2 6 Td (stamp\(page)word) Tj ET")
                packed.append((stamp, "<< /Type /Annot /Subtype /FreeText /Rect [300 740 500 760] /Contents (stamp) /DA (/F1 10 Tf) /AP << /N \(appearance) 0 R >> >>"))
                annotations.append(stamp)
            }
            if page == 0 || page == pages - 1 { annotations.append(shared) }
            let annots = annotations.map { "\($0) 0 R" }.joined(separator: " ")
            direct(number, "<< /Type /Page /Parent \(pageTree) 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 \(font) 0 R >> >> /Contents \(contents) 0 R /Annots [\(annots)] >>")
        }
        direct(catalog, "<< /Type /Catalog /Pages \(pageTree) 0 R /Names << /Dests \(destsTree) 0 R >> >>")
        direct(pageTree, "<< /Type /Pages /Kids [\(pageNumbers.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages) >>")
        direct(font, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        // One name-tree leaf per 50 names, under a root of kids with their limits (§7.9.6).
        var leaves: [String] = []
        for start in stride(from: 0, to: names.count, by: 50) {
            let leaf = reserve(), slice = names[start..<min(start + 50, names.count)]
            let first = slice.first!.split(separator: " ")[0], last = slice.last!.split(separator: " ")[0]
            packed.append((leaf, "<< /Limits [\(first) \(last)] /Names [\(slice.joined(separator: " "))] >>"))
            leaves.append("\(leaf) 0 R")
        }
        direct(destsTree, "<< /Kids [\(leaves.joined(separator: " "))] >>")
        // Object streams of 100 objects each.
        for start in stride(from: 0, to: packed.count, by: 100) {
            let chunk = packed[start..<min(start + 100, packed.count)]
            let container = reserve()
            var header = "", body = ""
            for (index, object) in chunk.enumerated() {
                header += "\(object.number) \(body.utf8.count) "
                body += object.body + "\n"
                entries[object.number] = (2, container, index)
            }
            stream(container, "/Type /ObjStm /N \(chunk.count) /First \(header.utf8.count)", header + body)
        }
        // The cross-reference stream: entries of 1 + 4 + 2 bytes (/W [1 4 2]).
        let xrefNumber = reserve()
        entries[xrefNumber] = (1, out.count, 0)
        var table: [UInt8] = []
        for number in 0..<next {
            let entry = entries[number] ?? (0, 0, 65535)
            table.append(entry.type)
            table += (0..<4).reversed().map { UInt8(truncatingIfNeeded: entry.field2 >> ($0 * 8)) }
            table += (0..<2).reversed().map { UInt8(truncatingIfNeeded: entry.field3 >> ($0 * 8)) }
        }
        let start = out.count
        out += Array("\(xrefNumber) 0 obj\n<< /Type /XRef /Size \(next) /W [1 4 2] /Root \(catalog) 0 R /Length \(table.count) >>\nstream\n".utf8)
        out += table
        out += Array("\nendstream\nendobj\nstartxref\n\(start)\n%%EOF\n".utf8)
        return out
    }
}

@Suite("Text as PDF producers leave it, repaired")
struct ExtractedTextTests {
    @Test("Accents drawn apart join their letters; circled letters are the symbol; NFC", arguments: [
        ("B\u{A8}ottcher and caf\u{B4}e", "Böttcher and café"),
        ("c\u{20DD} 2024, r\u{20DD}", "© 2024, ®"),
        ("plain text, untouched", "plain text, untouched"),
        ("a \u{B4} alone", "a \u{B4} alone"),
    ])
    func repaired(text: String, expected: String) {
        #expect(ExtractedText.repaired(text) == expected)
    }
}

@Suite("A PDF's title")
struct PDFTitleTests {
    @Test("A stated title that is only a file's name gives way to the first page's title line", arguments: [
        ("xcolor2.dvi", "Extending LaTeX's color facilities\nthe xcolor package", "Extending LaTeX's color facilities"),
        ("Microsoft Word - report.doc", "42\nQuarterly Report 2024\n", "Quarterly Report 2024"),
        ("An Introduction to R", "Something else", "An Introduction to R"),
        ("untitled", "", nil),
        ("notes.v2 draft", "Body", "notes.v2 draft"),
    ] as [(String, String, String?)])
    func title(stated: String, firstPage: String, expected: String?) {
        #expect(PDFDocument.title(stated, firstPage: firstPage) == expected)
    }
}

@Suite("HTML without its navigation, with its structure")
struct HTMLStructureTests {
    static let page = """
        <html><body><div class="related" role="navigation"><ul><li><a href="m">modules</a> |</li><li><a href="n">next</a> |</li></ul></div>
        <nav>site menu</nav>
        <div class="body"><h1>Walrus care<a class="headerlink" href="#w">¶</a></h1>
        <p>Walruses need   cold water.</p>
        <ul><li>fish</li><li>clams</li></ul>
        <pre>  def feed(walrus):
              return clams</pre>
        <h2>Tusks</h2><p>Long.</p>
        <table><tr><th>Name</th><th>Weight</th></tr><tr><td>Wally</td><td>1,200 kg</td></tr><tr><td>Wanda</td><td>900 kg</td></tr></table></div>
        <div class="sphinxsidebar"><h3>Quick search</h3></div></body></html>
        """

    @Test("Navigation, sidebars and header links are not the document's text; headings, lists and code keep their form")
    func structure() throws {
        let document = try HTMLDocument(html: Data(Self.page.utf8))
        #expect(!document.text.contains("modules") && !document.text.contains("site menu") && !document.text.contains("¶"))
        #expect(!document.text.contains("Quick search"))
        #expect(document.text.contains("Walruses need cold water."))
        let elements = HTMLDocument.structured(document.blocks, characters: 4_000)
        #expect(elements == [
            .heading(level: 1, "Walrus care"), .text("Walruses need cold water."), .list(ordered: false, items: [[.text("fish")], [.text("clams")]]),
            .code(language: nil, "  def feed(walrus):\n      return clams"), .heading(level: 2, "Tusks"), .text("Long."),
            .table(header: ["Name", "Weight"], rows: [["Wally", "1,200 kg"], ["Wanda", "900 kg"]]),
        ])
        #expect(document.text.contains("Wally 1,200 kg"), "a row is a line of the text, as before")
    }

    @Test("The terms of definition lists (an API reference's signatures, a manual's options) are searched with the headings")
    func definitionTerms() throws {
        let page = """
            <html><head><title>quux</title></head><body><h1>quux — tools</h1>
            <dl class="py function"><dt class="sig" id="quux.frob"><span>quux.</span><span>frob</span>(<em>value</em>)<a class="headerlink" href="#quux.frob">¶</a></dt>
            <dd><p>Frobnicates.</p></dd>
            <dt>-v, --verbose</dt><dd>Says more.</dd>
            <dt>   </dt><dd>An empty term is none.</dd></dl>
            <dl><dt>\(String(repeating: "long ", count: 100))</dt><dd>cut</dd></dl>
            </body></html>
            """
        let document = try HTMLDocument(html: Data(page.utf8))
        let headings = document.metadata.headings
        #expect(Array(headings.prefix(3)) == ["quux — tools", "quux.frob(value)", "-v, --verbose"], "\(headings)")
        #expect(headings.count == 4 && headings[3].count == HTMLText.termLength)
        #expect(document.metadata["Headings"]?.description == "1", "the count is of the headings alone")
        #expect(document.text.contains("quux.frob(value)"), "the terms stay in the text")
    }

    @Test("A page that declares no encoding is read as UTF-8 when its bytes are; a declared Latin-1 page as Latin-1")
    func encodings() throws {
        let undeclared = try HTMLDocument(html: Data("<html><body><h1>Café — menu</h1></body></html>".utf8))
        #expect(undeclared.title == "Café — menu")
        let latin1 = Data("<html><head><meta charset=\"iso-8859-1\"><title>Caf".utf8) + Data([0xE9]) + Data("</title></head><body>cr".utf8)
            + Data([0xE8]) + Data("me</body></html>".utf8)
        let declared = try HTMLDocument(html: latin1)
        #expect(declared.title == "Café" && declared.text.contains("crème"))
    }
}

@Suite("Man pages laid out as man lays them out")
struct ManPageLayoutTests {
    @Test("In no-fill, each font macro's prototype is a line of its own; a line ending in a backslash goes on")
    func synopsis() {
        let roff = """
            .TH KETTLE 2 2026-01-01 "Kettle manual"
            .SH NAME
            kettle \\- boil water
            .SH SYNOPSIS
            .nf
            .B #include <kettle.h>
            .PP
            .BI "int boil(int " litres );
            .BI "int boil_at(int " litres ", int " degrees \\
            ", int " flags );
            .fi
            .SH DESCRIPTION
            .B boil
            heats
            .I litres
            of water.
            """
        let page = ManPage(roff)
        let synopsis = page.sections.first { $0.heading == "SYNOPSIS" }?.text
        #expect(synopsis == "#include <kettle.h>\n\nint boil(int litres);\nint boil_at(int litres, int degrees, int flags);")
        #expect(page.sections.first { $0.heading == "DESCRIPTION" }?.text == "boil heats litres of water.", "filled text stays filled")
    }
}
