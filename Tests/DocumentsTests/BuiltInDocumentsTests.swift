import ContentTypes
import DocumentModel
@testable import Documents
import Foundation
import Rendering
import Testing
import TestSupport

/// Every built-in type, on real files from this machine's packages or written by a trusted tool.
@Suite("Built-in document types on real files")
struct BuiltInDocumentsTests {
    @Test("Plain text: a licence from base-files, UTF-16 with a BOM, Latin-1")
    func plainText() async throws {
        let gpl = try await open("/usr/share/common-licenses/GPL-3")
        #expect(gpl.documentTypeName == "PlainTextDocument")
        #expect(gpl.field("Encoding") == "UTF-8")
        #expect(Int(gpl.field("Lines") ?? "") ?? 0 > 600)
        #expect(try await gpl.text.contains("GNU GENERAL PUBLIC LICENSE"))

        let dir = try TemporaryDirectory()
        let utf16 = try dir.write("utf16.txt", bytes: [0xFF, 0xFE] + Array("héllo wörld\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let wide = try await open(utf16)
        #expect(wide.field("Encoding") == "UTF-16LE")
        #expect(try await wide.text == "héllo wörld\n")

        let latin1 = try dir.write("latin1.txt", bytes: Array("caf".utf8) + [0xE9] + Array(" cr".utf8) + [0xE8, 0x6D, 0x65, 0x0A])
        let old = try await open(latin1)
        #expect(old.field("Encoding") == "ISO-8859-1")
        #expect(try await old.text == "café crème\n")

        // UTF-8 with one stray Latin-1 byte: the UTF-8 stays UTF-8 (searchable as written),
        // the stray byte reads as its Latin-1 letter.
        let mixed = try dir.write("mixed.txt", bytes: Array("naïve café, ".utf8) + [0xE9] + Array("té d’été 😀\n".utf8))
        let both = try await open(mixed)
        #expect(both.field("Encoding") == "UTF-8")
        #expect(try await both.text == "naïve café, été d’été 😀\n")
    }

    @Test("A plain text is titled only where it sets out a title: underlined, over- and underlined, or centred")
    func textTitles() async throws {
        let cases: [(String, String?)] = [
            ("Git v2.37 Release Notes\n========================\n\nUpdates since v2.36\n", "Git v2.37 Release Notes"),
            ("\n\n=====\nUX Research\n=====\n\nBody.\n", "UX Research"),
            (":mod:`math` --- Mathematical functions\n======================================\n", "math — Mathematical functions"),
            ("Windows lines\r\n-------------\r\nbody\r\n", "Windows lines"),
            ("                   GNU LESSER GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007\n\n Copyright",
             "GNU LESSER GENERAL PUBLIC LICENSE — Version 3, 29 June 2007"),
            ("\t\tThe booktabs package\n\nSome text.\n", "The booktabs package"),
            // Not titles: a sentence, a date, a mode line, code, columns, a short rule under a long line.
            ("This package provides the foo library.\n\nMore.\n", nil),
            ("2024-01-02  Someone <a@b>\n\n\t* fix\n", nil),
            ("                -*- outline -*-\n\nTODO\n", nil),
            ("            if (x) { y(); }\n", nil),
            ("Thanks to                               for\n", nil),
            ("A first line that is long enough to need a longer rule than this\n---\n", nil),
            ("\n\n\n\n\n\n\n\n\n\n\n\nLate\n====\n", nil),
            ("", nil),
        ]
        for (text, title) in cases { #expect(TextTitle.of(text) == title, "\(text.debugDescription)") }

        // LaTeX: the title and sectioning its commands state, markup taken off.
        let latex = #"""
            \documentclass{article}
            \def\title#1{\gdef\@title{#1}}
            \title{The \textbf{walrus} package~manual\\ for \LaTeX}
            \begin{document}\maketitle
            \section*{Introduction}
            \section[Short]{Feeding {walruses} in winter}
            \subsection{Clams}
            \section{\@gobble}
            \end{document}
            """#
        let outline = LaTeXOutline.of(latex)
        #expect(outline.title == "The walrus package manual for LaTeX")
        #expect(outline.headings == ["Introduction", "Feeding walruses in winter", "Clams"], "\(outline.headings)")
        #expect(LaTeXOutline.of("\\section{never closed" + String(repeating: "x", count: 2_000)).headings.isEmpty)
        let texDir = try TemporaryDirectory()
        let texFile = try await open(try texDir.write("walrus.tex", latex))
        #expect(texFile.metadata.title == "The walrus package manual for LaTeX" && texFile.metadata.headings.count == 3)

        // Through the readers: a licence from base-files, and a gzipped text.
        let gpl = try await open("/usr/share/common-licenses/GPL-3")
        #expect(gpl.metadata.title == "GNU GENERAL PUBLIC LICENSE — Version 3, 29 June 2007")
        let dir = try TemporaryDirectory()
        let notes = try dir.write("NOTES.txt", "Release Notes\n=============\n\nNothing new.\n")
        #expect(try await open(notes).metadata.title == "Release Notes")
        #expect(try runTool("/usr/bin/gzip", ["-q", "-k", notes]).status == 0)
        let gzipped = try await open(notes + ".gz")
        #expect(gzipped.documentTypeName == "CompressedDocument" && gzipped.metadata.title == "Release Notes")
        let code = try dir.write("setup.py", "Setup\n=====\nimport os\n")
        #expect(try runTool("/usr/bin/gzip", ["-q", code]).status == 0)
        #expect(try await open(code + ".gz").metadata.title == nil, "code is not titled")
    }

    @Test("PostScript: its DSC fields (also at the end, also behind a DOS EPS header, also gzipped), never its code as text")
    func postScript() async throws {
        let dir = try TemporaryDirectory()
        let program = """
            %!PS-Adobe-3.0
            %%Title: (Walrus care \\(second edition\\))
            %%Creator: dvips(k) 2022.1
            %%For: (Wally)
            %%CreationDate: Thu Oct 20 00:09:42 2022
            %%Pages: (atend)
            %%BoundingBox: 0 0 612 792
            %%EndComments
            /Times-Roman findfont 12 scalefont setfont 72 720 moveto (quetzal) show showpage
            %%Trailer
            %%Pages: 3
            %%EOF

            """
        let opened = try await open(try dir.write("walrus.ps", program))
        #expect(opened.documentTypeName == "PostScriptDocument")
        #expect(opened.metadata.title == "Walrus care (second edition)")
        #expect(opened.field("Creator") == "dvips(k) 2022.1" && opened.field("Author") == "Wally" && opened.field("Pages") == "3")
        #expect(opened.field("Created") == "Thu Oct 20 00:09:42 2022" && opened.field("Bounding box") == "0 0 612 792")
        let text = try await opened.text
        #expect(!text.contains("findfont") && !text.contains("quetzal"), "no code, no guessed text")

        // Encapsulated, behind a DOS EPS binary header (offset 30, then a TIFF preview ignored).
        let eps = Array("%!PS-Adobe-3.0 EPSF-3.0\n%%Title: figure one\n%%BoundingBox: 0 0 10 10\n%%EndComments\n".utf8)
        var header: [UInt8] = [0xC5, 0xD0, 0xD3, 0xC6]
        for value in [30, eps.count, 0, 0, 0, 0] { header += (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        header += [0xFF, 0xFF]
        let figure = try await open(try dir.write("figure.eps", bytes: header + eps))
        #expect(figure.documentTypeName == "PostScriptDocument" && figure.metadata.title == "figure one" && figure.field("Kind") == "Encapsulated PostScript")

        // Gzipped: the same fields, filed as PostScript, no text.
        let gzipped = try dir.write("manual.ps", program)
        #expect(try runTool("/usr/bin/gzip", ["-q", gzipped]).status == 0)
        let compressed = try await open(gzipped + ".gz")
        #expect(compressed.documentTypeName == "CompressedDocument" && compressed.metadata.innerContentType == "com.adobe.postscript")
        #expect(compressed.metadata.title == "Walrus care (second edition)" && compressed.field("Pages") == "3")
        let compressedText = try await compressed.text
        #expect(!compressedText.contains("findfont"))

        // Not PostScript, named .ps: read by another reader, or an error; never a crash.
        let impostor = try? await open(try dir.write("impostor.ps", "hello, not a program\n"))
        #expect(impostor?.documentTypeName != "PostScriptDocument")
        #expect(PostScriptComments(Data([0xC5, 0xD0, 0xD3, 0xC6, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0])) == nil, "an offset past the end")
        #expect(PostScriptComments(Data("%!".utf8))?.title == nil)
        #expect(PostScriptComments(Data("%!PS-Adobe-2.0\n%%Title: gnuplot.dvi\n".utf8))?.title == nil, "dvips's input name is no title")
    }

    @Test("DVI: the text of its text fonts, words apart where TeX moved right, lines where it moved down, accents on their letters; pages; gzipped too; cut or garbled, read as far as it goes")
    func dvi() async throws {
        func be(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func fontDef(_ number: Int, _ name: String) -> [UInt8] {
            [243, UInt8(number)] + be(0, 4) + be(655_360, 4) + be(655_360, 4) + [0, UInt8(name.utf8.count)] + Array(name.utf8)
        }
        let bop: [UInt8] = [139] + Array(repeating: 0, count: 40) + be(-1, 4)
        let space: [UInt8] = [145] + be(218_453, 3), kern: [UInt8] = [145] + be(18_000, 3), down: [UInt8] = [159] + be(786_432, 3)
        var bytes: [UInt8] = [247, 2] + be(25_400_000, 4) + be(473_628_672, 4) + be(1_000, 4) + [11] + Array("TeX output ".utf8)
        bytes += fontDef(0, "cmr10") + fontDef(1, "cmmi10") + fontDef(2, "ec-lmr10")
        bytes += bop + [171] + [12] + Array("sh".utf8) + space + Array("caf".utf8) + [19] + Array("e".utf8)   // ﬁsh café
        bytes += kern + Array("s".utf8) + down + Array("J".utf8) + [19] + Array("er".utf8) + [94] + Array("ome".utf8)   // (kerned) s; Jérôme
        bytes += [172] + Array("x".utf8) + [171] + space + Array("Mikul".utf8) + [19, 16] + Array("k".utf8) + [140]    // math left out; Mikulík
        bytes += bop + [173] + [28] + Array("ne".utf8) + [150] + be(218_453, 3) + [128, 233] + Array("t".utf8) + [147] + Array("two".utf8) + [140]
        bytes += [248] + be(0, 4)
        let dir = try TemporaryDirectory()
        let path = try dir.write("notes.dvi", bytes: bytes)
        let opened = try await open(path)
        #expect(opened.documentTypeName == "DVIDocument" && opened.field("Pages") == "2" && opened.field("Comment") == "TeX output")
        let text = try await opened.text
        #expect(text == "fish cafés\nJérôme Mikulík\n\nfine ét two", "\(text.debugDescription)")
        // Gzipped, as Debian ships refcard.dvi.gz.
        #expect(try runTool("/usr/bin/gzip", ["-q", "-k", path]).status == 0)
        let compressed = try await open(path + ".gz")
        #expect(compressed.metadata.innerContentType == "org.freedesktop.mime.application.x-dvi")
        #expect(try await compressed.text == text)
        // Cut in the middle of a command, or an undefined command: read as far as it goes, with a warning.
        let cut = try await open(try dir.write("cut.dvi", bytes: Array(bytes.prefix(try #require(bytes.firstIndex(of: UInt8(ascii: "J")))))))
        #expect(cut.documentTypeName == "DVIDocument" && cut.metadata.problems.count == 1, "\(cut.documentTypeName) \(cut.metadata.problems)")
        #expect(try await cut.text.hasPrefix("fish"))
        let garbled = DVIText(Data(bytes.prefix(26) + [251] + bytes.dropFirst(26)))
        #expect(garbled?.problem?.contains("undefined command (251)") == true)
        #expect(DVIText(Data([247, 9] + Array(repeating: 0, count: 20))) == nil, "not DVI's identification")
    }

    @Test("Trimming without Foundation trims what Foundation's whitespacesAndNewlines does")
    func nativeTrimming() {
        // Every kind of space and line end at the ends, and the same in the middle (kept).
        let ends: [Unicode.Scalar] = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{2003}", "\u{2028}", "\u{2029}", "\u{3000}", "\u{1680}", "\u{200A}", "\u{202F}", "\u{205F}", "\u{200B}"]
        let inner: [Unicode.Scalar] = ["a", "é", "😀", "\u{180E}", "\u{200C}", "\u{FEFF}", "\u{1F}", "x"]  // other zero-width and control: kept
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                text.append(Bool.random(using: &generator) ? ends.randomElement(using: &generator)! : inner.randomElement(using: &generator)!)
            }
            let string = String(text)
            #expect(string.trimmingWhitespaceAndNewlines == string.trimmingCharacters(in: .whitespacesAndNewlines), "\(string.unicodeScalars.map(\.value))")
        }
    }

    @Test("A stray NUL past the first 8,000 bytes of a text (GNU grep's manual holds two) is shown as U+FFFD; NULs early or many are binary")
    func strayNULs() {
        let line = Array("Lines of a manual that goes on and on.\n".utf8)
        let head = Array(repeating: line, count: 250).flatMap { $0 }  // 10,000 bytes
        let stray = DecodedText(Data(head + Array("printf 'a".utf8) + [0] + Array("b' | grep -z b\n".utf8) + head))
        #expect(stray?.string.contains("printf 'a\u{FFFD}b' | grep -z b") == true && stray?.encoding == "UTF-8")
        #expect(DecodedText(Data(head + [0xE9, 0] + head))?.string.contains("\u{E9}\u{FFFD}") == true, "Latin-1 too")
        #expect(DecodedText(Data(Array(line.prefix(20)) + [0] + head)) == nil, "a NUL in the first 8,000 bytes")
        // GNU info's index cookies, anywhere: markup, dropped.
        let cookie = DecodedText(Data(Array("* Menu:\n".utf8) + [0, 8] + Array("[index".utf8) + [0, 8] + Array("]\n".utf8) + head))
        #expect(cookie?.string.hasPrefix("* Menu:\n[index]\n") == true)
        #expect(DecodedText(Data(head + Array(repeating: [0x41, 0], count: 100).flatMap { $0 })) == nil, "more than one NUL in 4,096 bytes")
    }

    @Test("Bytes that are not UTF-8 throughout: valid sequences kept, every other byte as Latin-1")
    func mixedDecoding() throws {
        func decode(_ bytes: [UInt8]) -> String? { DecodedText(Data(bytes))?.string }
        // Against a byte-by-byte reference: each maximal valid sequence (as Swift's own UTF-8
        // validation judges one) kept, anything else one Latin-1 character per byte.
        func reference(_ bytes: [UInt8]) -> String {
            var out = "", i = 0
            while i < bytes.count {
                var taken = false
                for length in [4, 3, 2, 1] where i + length <= bytes.count {
                    if let piece = String(validating: bytes[i..<i + length], as: UTF8.self), piece.unicodeScalars.count == 1 {
                        out += piece
                        i += length
                        taken = true
                        break
                    }
                }
                if !taken {
                    out.unicodeScalars.append(Unicode.Scalar(bytes[i]))
                    i += 1
                }
            }
            return out
        }
        #expect(decode([0x61, 0xC3]) == "aÃ")                           // a sequence cut at the end
        #expect(decode([0xE0, 0x80, 0x80, 0x41]) == "à\u{80}\u{80}A")      // overlong form
        #expect(decode([0xED, 0xA0, 0x80]) == "í\u{A0}\u{80}")             // a surrogate
        #expect(decode([0xF4, 0x90, 0x80, 0x80]) == "ô\u{90}\u{80}\u{80}")  // past U+10FFFF
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x20, 0x0A, 0x80, 0x9F, 0xA0, 0xBF, 0xC2, 0xC3, 0xDF, 0xE0, 0xE2, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 1...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            guard String(validating: bytes, as: UTF8.self) == nil else { continue }
            #expect(decode(bytes) == reference(bytes), "\(bytes)")
        }
    }

    @Test("Source code: the language comes from the content type")
    func sourceCode() async throws {
        let swift = try await open(#filePath)
        #expect(swift.documentTypeName == "SourceCodeDocument")
        #expect(swift.field("Language") == "swift")
        guard case .code(let language, let code)? = swift.preview().elements.first(where: { if case .code = $0 { true } else { false } }) else {
            Issue.record("no code block")
            return
        }
        #expect(language == "swift")
        #expect(code.hasPrefix("import ContentTypes"))

        let dir = try TemporaryDirectory()
        let script = try dir.write("run.py", "#!/usr/bin/env python3\nprint('hi')\n")
        let python = try await open(script)
        #expect(python.field("Language") == "python")
    }

    @Test("Markdown: title from the first heading, outline, tables, HTML and text renditions")
    func markdown() async throws {
        let readme = try await open("/usr/share/doc/shared-mime-info/README.md")
        #expect(readme.documentTypeName == "MarkdownDocument")
        #expect(readme.metadata.title == "Shared MIME Info")
        let html = String(decoding: try await readme.export(as: .html).regularFileContents ?? Data(), as: UTF8.self)
        #expect(html.contains("<h1>Shared MIME Info</h1>"))
        #expect(!(try await readme.text).contains("# "))

        let dir = try TemporaryDirectory()
        let file = try dir.write("notes.md", """
            # Plan
            Intro with *emphasis*.
            ## Costs
            | item | price |
            |------|-------|
            | tea  | 3     |
            ```python
            print(1)
            ```
            <script>alert(1)</script>
            """)
        let notes = try await open(file)
        let elements = notes.preview().elements
        #expect(elements.contains(.heading(level: 2, "Costs")))
        #expect(elements.contains(.table(header: ["item", "price"], rows: [["tea", "3"]])))
        #expect(elements.contains(.code(language: "python", "print(1)")))
        #expect(elements.contains(.text("Intro with emphasis.")))
        // Raw HTML is never passed through: cmark's safe mode drops it from the HTML rendition.
        let exported = String(decoding: try await notes.export(as: .html).regularFileContents ?? Data(), as: UTF8.self)
        #expect(!exported.contains("<script>"))
        // The plain-text rendition (what the index stores) keeps what a reader of the source
        // sees but the rendering hides: addresses, fence info strings, raw HTML.
        let linked = try await open(try dir.write("links.md", """
            See [the docs](https://example.org/manual "Manual") and ![logo](img/logo.png).

            ```{admonition} Example
            body
            ```

            <p align="center">banner</p>

            [ref]: https://example.org/unused
            """))
        let text = try await linked.text
        #expect(text.hasPrefix("See the docs and logo."))
        for hidden in ["https://example.org/manual", "Manual", "img/logo.png", "{admonition} Example", "<p align=\"center\">banner</p>"] {
            #expect(text.contains(hidden), "\(hidden) in \(text)")
        }
    }

    @Test("JSON: valid shape, keys in file order, strings as text")
    func json() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("config.json", #"{"zeta": 1, "alpha": {"deep": [true, null, "needle"]}, "mid": "x\"y"}"#)
        let document = try await open(file)
        #expect(document.documentTypeName == "JSONDocument")
        #expect(document.field("Valid") == "yes")
        #expect(document.field("Keys") == "3")
        #expect(document.field("Depth") == "3")
        let text = try await document.text
        #expect(text.contains("needle") && text.contains("x\"y") && text.contains("zeta"))
        #expect(document.preview().elements.contains(.section(title: "Top-level keys", [.text("zeta, alpha, mid")])))
    }

    @Test("CSV and TSV: header, rows, counts, JSON export")
    func csv() async throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("people.csv", "name,city\r\n\"Smith, Jo\",\"Paris\"\r\n\"say \"\"hi\"\"\",\"multi\nline\"\r\n")
        let document = try await open(file)
        #expect(document.documentTypeName == "CSVDocument")
        #expect(document.field("Rows") == "2")
        #expect(document.field("Columns") == "2")
        #expect(document.preview().elements.contains(.table(header: ["name", "city"], rows: [["Smith, Jo", "Paris"], ["say \"hi\"", "multi\nline"]])))
        let json = try await document.export(as: .json).regularFileContents ?? Data()
        let rows = try JSONSerialization.jsonObject(with: json) as? [[String: String]]
        #expect(rows?.first?["name"] == "Smith, Jo")

        let tsv = try dir.write("t.tsv", "a\tb\n1\t2\n")
        #expect(try await open(tsv).field("Separator") == "tab")
    }

    @Test("HTML: libxml2's own documentation")
    func html() async throws {
        let faq = try await open("/usr/share/doc/libxml2/html/FAQ.html")
        #expect(faq.documentTypeName == "HTMLDocument")
        #expect(faq.metadata.title?.isEmpty == false)
        #expect(Int(faq.field("Links") ?? "") ?? 0 > 10)
        let text = try await faq.text
        #expect(text.contains("libxml"))
        #expect(!text.contains("<a ") && !text.contains("href=") && !text.contains("<p>"))
    }

    @Test("XML: root element and namespaces of a real Word document part and the MIME database")
    func xml() async throws {
        let word = try await open("/usr/share/pandoc/data/docx/word/document.xml")
        #expect(word.documentTypeName == "XMLDocument")
        #expect(word.field("Root element") == "document")
        #expect(word.field("Well-formed") == "yes")
        let namespaces = word.preview().elements.compactMap { element -> [[String]]? in
            if case .section("Namespaces", let content) = element, case .table(_, let rows)? = content.first { return rows }
            return nil
        }.first ?? []
        #expect(namespaces.contains { $0.first == "w" })

        let mime = try await open("/usr/share/mime/packages/freedesktop.org.xml")
        #expect(mime.field("Root element") == "mime-info")
        #expect(mime.field("Namespace") == "http://www.freedesktop.org/standards/shared-mime-info")
    }

    @Test("Images: dimensions from headers agree with file(1) for PNG, GIF, JPEG, BMP and WebP")
    func images() async throws {
        let dir = try TemporaryDirectory()
        let png = "/usr/share/doc/libpng-dev/examples/pngtest.png"
        // A PPM written here, turned into JPEG by cjpeg, into BMP by djpeg, and the PNG into WebP by cwebp.
        let ppm = try dir.write("p.ppm", bytes: Array("P6\n37 23\n255\n".utf8) + (0..<(37 * 23 * 3)).map { UInt8($0 % 251) })
        let jpeg = dir.path + "/photo.jpg", bmp = dir.path + "/photo.bmp", webp = dir.path + "/icon.webp"
        #expect(try runTool("/usr/bin/cjpeg", ["-outfile", jpeg, ppm]).status == 0)
        #expect(try runTool("/usr/bin/djpeg", ["-bmp", "-outfile", bmp, jpeg]).status == 0)
        #expect(try runTool("/usr/bin/cwebp", ["-quiet", png, "-o", webp]).status == 0)
        let cases: [(path: String, format: String)] = [
            (png, "PNG"), ("/usr/share/doc/libxml2/html/Libxml2-Logo-180x168.gif", "GIF"), (jpeg, "JPEG"), (bmp, "BMP"),
            (webp, "WebP"),
        ]
        for (path, format) in cases {
            let image = try await open(path)
            // JPEG goes to the photograph reader (header and EXIF), the rest to the image reader.
            #expect(image.documentTypeName == (format == "JPEG" ? "PhotoDocument" : "ImageDocument"), "\(path)")
            #expect(image.field("Format") == format)
            // file(1) does not give a WebP's size; cwebp keeps the PNG's.
            let expected = try dimensionsFromFile(format == "WebP" ? png : path)
            #expect(expected != nil)
            #expect(image.field("Width") == expected.map { String($0.0) } && image.field("Height") == expected.map { String($0.1) },
                    "\(format): Docent says \(image.field("Dimensions") ?? "nothing"), file says \(String(describing: expected))")
            #expect(image.metadata.problems.isEmpty, "\(format): \(image.metadata.problems)")
        }
        #expect(try await open(png).field("Colour") == "RGBA")

        let svg = try dir.write("logo.svg", """
            <?xml version="1.0"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="120" height="80px"><title>Company logo</title><text x="1" y="2">ACME</text></svg>
            """)
        let vector = try await open(svg)
        #expect(vector.documentTypeName == "ImageDocument")
        #expect(vector.field("Dimensions") == "120 × 80")
        #expect(vector.metadata.title == "Company logo")
        #expect(try await vector.text.contains("ACME"))
    }

    @Test("A file named as a man page that holds no roff (a licence's LGPL-2.1) is read as plain text; a GNU info manual with a stray NUL, gzipped, is text")
    func namedAsManPage() async throws {
        let dir = try TemporaryDirectory()
        let licence = try dir.write("licenses/LGPL-2.1", "                  GNU LESSER GENERAL PUBLIC LICENSE\n                       Version 2.1, February 1999\n\nEveryone is permitted to copy and distribute verbatim copies.\n")
        let opened = try await open(licence)
        #expect(opened.contentType.identifier == "org.troff.man-page", "named as section 1's page")
        #expect(opened.metadata.problems.isEmpty && opened.documentTypeName == "ManPageDocument")
        #expect(try await opened.text.contains("Everyone is permitted to copy"))
        // An info manual whose example holds a NUL past its first 8,000 bytes.
        let node = "\u{1F}\nFile: tool.info,  Node: Usage\n\nUse the tool on lines of text, one at a time.\n"
        let info = try dir.write("info/tool.info", String(repeating: node, count: 200) + "printf 'a\u{0}b' | tool -z\n")
        #expect(try runTool("/usr/bin/gzip", ["-q", info]).status == 0)
        let manual = try await open(info + ".gz")
        #expect(try await manual.text.contains("printf 'a\u{FFFD}b' | tool -z"), "read, the NUL shown as U+FFFD")
    }

    @Test("A PDF compressed by gzip (policy.pdf.gz) is read as a PDF: its pages' text and information; a cut stream is read as far as it goes")
    func gzippedPDF() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("manual.pdf", String(decoding: SamplePDF.make(pages: 3, word: "quetzalcoatlus"), as: UTF8.self))
        #expect(try runTool("/usr/bin/gzip", ["-q", path]).status == 0)
        let opened = try await open(path + ".gz")
        #expect(opened.contentType.identifier == "org.freedesktop.mime.application.x-gzpdf" && opened.documentTypeName == "PDFDocument")
        #expect(opened.field("Pages") == "3" && opened.metadata.problems.isEmpty)
        #expect(try await opened.text.contains("quetzalcoatlus"))
        // Cut: a warning, not a crash; MuPDF reads what it can.
        let whole = try Data(contentsOf: URL(fileURLWithPath: path + ".gz"))
        let cut = try dir.write("cut.pdf.gz", "")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        let partial = try? await open(cut)
        #expect(partial == nil || partial?.metadata.problems.isEmpty == false)
    }

    @Test("Compressed files: a man page and a text compressed by gzip, bzip2, xz, lzma and zstd, typed by what they hold")
    func compressed() async throws {
        let dir = try TemporaryDirectory()
        for (tool, ext, name) in [("gzip", "gz", "gzip"), ("bzip2", "bz2", "bzip2"), ("xz", "xz", "xz"), ("lzma", "lzma", "lzma"), ("zstd", "zst", "zstd")] {
            let page = try dir.write("\(tool)/tool.1", ".TH TOOL 1\n.SH NAME\ntool \\- does things\n")
            #expect(try runTool("/usr/bin/\(tool)", ["-q", page]).status == 0)
            let man = try await open(page + "." + ext)
            #expect(man.documentTypeName == "CompressedDocument" && man.metadata.problems.isEmpty, "\(ext)")
            #expect(try await man.text.contains("does things"))
            #expect(man.preview().elements.first == .title("tool(1) — does things") && man.field("Summary") == "does things", "rendered as a man page")
            #expect(man.metadata.innerContentType == "org.troff.man-page" && man.field("Compression") == name, "\(ext)")
            let notes = try dir.write("\(tool)/notes.txt", "plain words inside\n")
            #expect(try runTool("/usr/bin/\(tool)", ["-q", notes]).status == 0)
            let text = try await open(notes + "." + ext)
            #expect(text.metadata.innerContentType == "public.plain-text" && text.field("Decompressed") == "19", "\(ext)")
        }
        // A stream cut short is read as far as it goes, and says so.
        let long = try dir.write("long.txt", (1...100_000).map { "line \($0) of \($0 * 7919 % 100_003)\n" }.joined())
        #expect(try runTool("/usr/bin/xz", ["-q", long]).status == 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: long + ".xz"))
        let cut = try await open(try dir.write("cut.txt.xz", bytes: whole.prefix(whole.count / 2)))
        #expect(cut.documentTypeName == "CompressedDocument" && cut.metadata.problems.contains { $0.message.contains("damaged") })

        let changelog = try await open("/usr/share/doc/file/changelog.Debian.gz")
        #expect(try await changelog.text.contains("file ("))
    }

    @Test("Generic: an executable, a FIFO and a directory")
    func generic() async throws {
        let elf = try await open("/bin/true")
        #expect(elf.documentTypeName == "GenericDocument")
        #expect(elf.field("Description")?.contains("ELF") == true)
        #expect(elf.preview().elements.contains { if case .code(_, let dump) = $0 { dump.hasPrefix("00000000  7f 45 4c 46") } else { false } })
        #expect(elf.writableContentTypes.isEmpty)

        let dir = try TemporaryDirectory()
        let fifo = dir.path + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let special = try await open(fifo)  // would block forever if it were opened
        #expect(special.field("Kind") == "fifo")

        try dir.write("sub/a.txt", "a")
        try dir.write("sub/b.txt", "b")
        let listing = try await open(dir.path + "/sub")
        #expect(listing.preview().elements.contains(.list(ordered: false, items: [[.text("a.txt")], [.text("b.txt")]])))
    }

    @Test("PDF dates as ISO 32000 writes them: every part after the year optional, with or without an offset")
    func pdfDates() {
        func iso(_ text: String) -> String? { PDFDocument.date(text).map { $0.formatted(.iso8601) } }
        #expect(iso("D:20221026134529+02'00'") == "2022-10-26T11:45:29Z")
        #expect(iso("D:20221026134529-05'30") == "2022-10-26T19:15:29Z")
        #expect(iso("D:20221026134529Z") == "2022-10-26T13:45:29Z")
        #expect(iso("D:199812") == "1998-12-01T00:00:00Z")
        #expect(iso("20240229") == "2024-02-29T00:00:00Z")
        for bad in ["", "D:", "D:19x8", "D:20221326", "D:20221026256000", "yesterday"] { #expect(iso(bad) == nil, "\(bad)") }
    }
}

@Suite("Man pages rendered as bytes")
struct ManPageBytesTests {
    @Test("CRLF line ends (one Character each, which a split on \"\\n\" never met) are lines; escapes and quoted arguments as before")
    func crlfAndEscapes() {
        let page = ManPage(".TH TOOL 1 \"2024-01-02\"\r\n.SH NAME\r\ntool \\- does \\fBthings\\fR\r\n.SH DESCRIPTION\r\n.B \"two words\" \\(em done\r\nna\\[u00EF]ve \\(co caf\\['e]\r\n")
        #expect(page.name == "TOOL" && page.section == "1" && page.date == "2024-01-02")
        #expect(page.summary == "does things")
        #expect(page.sections.map(\.heading) == ["NAME", "DESCRIPTION"])
        #expect(page.sections.last?.text == "two words — done naïve © café")
        #expect(ManPage.arguments("a \"b \"\"c\"\"\" d\\ e \\\" comment") == ["a", "b \"c\"", "d\\ e"])
        #expect(Escapes.render("\\s-1x\\s0 \\h'1n'y \\*(lqq\\*(rq \\e \\é") == "x y “q” \\ é")
    }
    @Test("Macro definitions end at `..` written with spaces after the dot, or at the request they name; the text after them is read")
    func definitionsEnd() {
        // As Asciidoctor writes them (util-linux's and systemd's pages): definitions inside a
        // conditional block, each ended by `.  .`. Read as not ended, the whole page was lost.
        let asciidoctor = """
            .TH "MOUNT" "8" "2022-08-04" "util\\-linux 2.38.1" "System Administration"
            .de URL
            \\fI\\\\$2\\fP <\\\\$1>\\\\$3
            ..
            .if \\n[.g] \\{\\
            .  mso www.tmac
            .  am URL
            .    ad l
            .  .
            .  am MTO
            .    ad l
            .  .
            .  LINKSTYLE blue R < >
            .\\}
            .SH "NAME"
            mount \\- mount a filesystem
            .SH "DESCRIPTION"
            All files accessible in a Unix system are arranged in one big tree.
            """
        let page = ManPage(asciidoctor)
        #expect(page.summary == "mount a filesystem")
        #expect(page.sections.map(\.heading) == ["NAME", "DESCRIPTION"])
        #expect(page.sections.last?.text == "All files accessible in a Unix system are arranged in one big tree.")
        // `.de NAME END` and `.ig END` end at `.END`; a `..` inside them is theirs.
        let named = ManPage(".TH T 1\n.de XX YY\n..\nhidden\n.YY\n.ig ZZ\nhidden too\n..\n.ZZ\n.SH NAME\nt \\- shown\n")
        #expect(page.name == "MOUNT" && named.summary == "shown" && !named.text.contains("hidden"))
    }
    @Test("tbl tables laid out as man lays them out: columns aligned by their format, spans, text blocks, rules")
    func tables() {
        let roff = """
            .TH TOOL 1
            .SH LIMITS
            Before the table.
            .TS
            allbox tab(:);
            c s s
            lB r c.
            Limits of the tool
            _
            Name:Bytes:Kind
            page:4096:fixed
            .sp
            block:T{
            a block whose
            .B words
            are many
            T}:soft
            .T&
            l r r.
            total:12:.5
            .TE
            After the table.
            """
        let page = ManPage(roff)
        let text = page.sections.first { $0.heading == "LIMITS" }?.text ?? ""
        #expect(text == """
            Before the table.

                        Limits of the tool
            ──────────────────────────────────────────
            Name                          Bytes  Kind
            page                           4096  fixed
            block  a block whose words are many  soft
            total                            12     .5

            After the table.
            """, "\(text)")
        // Format lines: keys with their modifiers, fonts and widths skipped.
        #expect(RoffTable.format("lfB lw(2i) n cI s.") == [.left, .left, .right, .centre, .spanned])
    }

}
