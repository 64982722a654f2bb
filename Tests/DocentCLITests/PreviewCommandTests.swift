import Foundation
import Testing
import TestSupport

@Suite("docent preview and docent export, end to end")
struct PreviewCommandTests {
    static let hostile = #""><img src=x onerror=alert(1)><script>alert(1)</script>"#

    @Test("HTML output escapes hostile names and content")
    func htmlEscapesNamesAndContent() throws {
        let dir = try TemporaryDirectory()
        let markdown = try dir.write(Self.hostile + ".md", "# \(Self.hostile)\n\nbody \(Self.hostile)\n\n<script>alert(2)</script>\n")
        let image = dir.path + "/" + Self.hostile + ".png"
        try FileManager.default.copyItem(atPath: "/usr/share/doc/libpng-dev/examples/pngtest.png", toPath: image)
        for file in [markdown, image] {
            let r = try Docent.run(["preview", "--format", "html", file])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasPrefix("<!DOCTYPE html>"))
            #expect(!r.stdout.contains("<script"), "\(file)")
            #expect(!r.stdout.contains("<img src=x"), "\(file)")
            #expect(r.stdout.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    @Test("Default format: text on a pipe, ANSI colour on a terminal unless NO_COLOR is set")
    func formats() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("doc.md", "# Title\n\nSome *text*.\n")
        let piped = try Docent.run(["preview", file])
        #expect(piped.status == 0)
        #expect(piped.stdout.hasPrefix("Title\n=====\n"))
        #expect(!piped.stdout.contains("\u{1B}"))

        // script(1) gives the command a pseudo-terminal. The test runner may set NO_COLOR itself.
        let command = "\(Docent.binary.path) preview \(file)"
        let coloured = try runTool("/usr/bin/env", ["-u", "NO_COLOR", "/usr/bin/script", "-qec", command, "/dev/null"])
        #expect(String(decoding: coloured.output, as: UTF8.self).contains("\u{1B}[1;4mTitle"))
        let plain = try runTool("/usr/bin/env", ["NO_COLOR=1", "/usr/bin/script", "-qec", command, "/dev/null"])
        let plainOut = String(decoding: plain.output, as: UTF8.self)
        #expect(plainOut.contains("Title") && !plainOut.contains("\u{1B}["))
    }

    @Test("JSON output names the document type and carries metadata and problems")
    func json() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("bad.json", #"{"a": }"#)
        let r = try Docent.run(["preview", "--format", "json", file])
        #expect(r.status == 0)
        let object = try #require(r.jsonLines.first)
        #expect(object["documentType"] as? String == "JSONDocument")
        #expect(object["contentType"] as? String == "public.json")
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.first?["kind"] as? String == "invalid-json")
        #expect((object["preview"] as? [String: Any])?["elements"] != nil)
    }

    @Test("A file over --max-bytes previews its head and says so")
    func readBudget() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("big.txt", String(repeating: "abcdefghij\n", count: 10_000))
        let r = try Docent.run(["preview", "--max-bytes", "1000", file])
        #expect(r.status == 0)
        #expect(r.stdout.contains("warning: Truncated: only the first 1000 of 110000 bytes were read."))
    }

    @Test("export writes renditions; a type the document cannot write is exit 2 with the ones it can")
    func export() throws {
        let dir = try TemporaryDirectory()
        let csv = try dir.write("t.csv", "name,n\nx,1\n")
        let json = try Docent.run(["export", csv, "--as", "public.json"])
        #expect(json.status == 0)
        #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]]) == [["name": "x", "n": "1"]])

        let md = try dir.write("a.md", "# Hi\n\ntext\n")
        let html = try Docent.run(["export", md, "--as", "html"])
        #expect(html.stdout == "<h1>Hi</h1>\n<p>text</p>\n")
        let text = try Docent.run(["export", md, "--as", "text/plain"])
        #expect(text.stdout == "Hi\n\ntext\n")

        let refused = try Docent.run(["export", md, "--as", "pdf"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("cannot be exported as com.adobe.pdf; it can be exported as: public.plain-text, public.html"))
        #expect(!refused.stderr.contains("Usage"))

        let unknown = try Docent.run(["export", md, "--as", "nonsense-type"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("'nonsense-type' is not a known content type"))
    }

    @Test("A missing file or a bad flag is exit 2 with a clear message")
    func badInput() throws {
        let missing = try Docent.run(["preview", "/nonexistent/file.txt"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/file.txt: No such file or directory"))
        let badFormat = try Docent.run(["preview", "--format", "pdf", "/etc/hostname"])
        #expect(badFormat.status == 2)
    }

    @Test("preview --query: every line of the whole document that matches, numbered and marked as search marks them")
    func passages() throws {
        let dir = try TemporaryDirectory()
        var lines = (1...1_002).map { "line \($0) of filler" }
        lines[118] = "    def expand(self): the memory usage grows, Memory."
        lines[899] = "free software, and software that is free"
        let source = try dir.write("big.py", lines.joined(separator: "\n") + "\n")
        var r = try Docent.run(["preview", source, "--query", "memory"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "119:     def expand(self): the [memory] usage grows, [Memory].\n", "the 119th of 1,002 lines, not only the first screen")
        r = try Docent.run(["preview", source, "--query", "\"free software\" OR grows"])
        #expect(r.stdout == "119:     def expand(self): the memory usage [grows], Memory.\n900: [free software], and software that is free\n")
        r = try Docent.run(["preview", source, "--query", "memory", "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let first = try #require((json["lines"] as? [[String: Any]])?.first)
        #expect(json["matches"] as? Int == 2 && first["line"] as? Int == 119 && first["marks"] as? [[Int]] == [[26, 32], [46, 52]])
        // Read in the helper: a PDF's text, whole.
        let pdf = dir.path + "/manual.pdf"
        try Data(SamplePDF.make(pages: 3, word: "okapiword")).write(to: URL(fileURLWithPath: pdf))
        r = try Docent.run(["preview", pdf, "--query", "okapiword"])
        #expect(r.status == 0 && r.stdout.contains("[okapiword]"), "\(r.stdout)\(r.stderr)")
        // No match: said on standard error, exit 1; a query that cannot be read: exit 2.
        r = try Docent.run(["preview", source, "--query", "zebra"])
        #expect(r.status == 1 && r.stdout.isEmpty && r.stderr.contains("no match for zebra"))
        r = try Docent.run(["preview", source, "--query", "\"unclosed"])
        #expect(r.status == 2 && r.stderr.contains("unbalanced quote"))
        r = try Docent.run(["preview", source, "--query", "memory", "--follow"])
        #expect(r.status == 2)
    }
}
