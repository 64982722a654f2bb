import DocumentModel
import Foundation
import Rendering
import Testing

@Suite("Renderers")
struct RenderingTests {
    static let script = "<script>alert(1)</script>"
    static let breakout = "\"><img src=x onerror=alert(1)>"

    /// A preview with hostile text in every element a file's content can reach.
    static var hostile: Preview {
        Preview {
            Title(script)
            Heading(breakout, level: 2)
            Text("body " + script)
            CodeBlock(script, language: breakout)
            Table(header: [script], rows: [[breakout]])
            Metadata([MetadataField(key: breakout, value: .text(script))])
            List { Text(breakout) }
            Image(breakout, alternativeText: script)
            Image("javascript:alert(1)", alternativeText: "x")
            Section(script) { Text(breakout) }
            Note(script, severity: .error)
        }
    }

    @Test("HTML escapes every piece of file content and allows no script")
    func htmlEscapes() {
        let html = HTMLRenderer().render(Self.hostile)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("onerror=alert(1)>"))
        #expect(!html.contains("src=\"javascript:"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        // Every tag in the page is one the renderer wrote.
        let tags = Set(html.matches(of: /<\/?([a-zA-Z0-9!]+)/).map { String($0.1).lowercased() })
        #expect(tags.isSubset(of: ["!doctype", "html", "head", "meta", "title", "style", "body", "article", "h1", "h2", "h3", "p",
                                   "pre", "code", "table", "thead", "tbody", "tr", "th", "td", "dl", "dt", "dd", "ul", "ol",
                                   "li", "img", "section", "br"]), "\(tags)")
    }

    @Test("Text and ANSI show control characters from files instead of obeying them")
    func terminalSafety() {
        let preview = Preview {
            Title("name\u{1B}]0;owned\u{07}")
            Text("clear\u{1B}[2J screen\r and \u{9B}31m C1")
            CodeBlock("tab\there")
        }
        for style in [TextRenderer.Style.plain, .ansi] {
            let out = TextRenderer(width: 80, style: style).render(preview)
            let escapes = out.unicodeScalars.filter { $0 == "\u{1B}" }.count
            #expect(style == .plain ? escapes == 0 : out.contains("\u{1B}[1;4m"))
            #expect(out.contains("name^[]0;owned^G"))
            #expect(out.contains("clear^[[2J screen^M and <U+9B>31m C1"))
            #expect(out.contains("tab    here"))
            // The only escape sequences are the renderer's own SGR codes.
            #expect(out.matches(of: /\x1B\[[0-9;]*m/).count == escapes)
        }
    }

    @Test("Text wraps to the width and tables fit it")
    func width() {
        let preview = Preview {
            Text(String(repeating: "word ", count: 60))
            Table(header: ["a", "b"], rows: [[String(repeating: "x", count: 70), String(repeating: "y", count: 70)]])
        }
        let out = TextRenderer(width: 40).render(preview)
        for line in out.split(separator: "\n") { #expect(line.count <= 40, "\(line)") }
        #expect(out.contains("…"))
        // Without a width (a pipe), paragraphs are not wrapped.
        #expect(TextRenderer().render(preview).split(separator: "\n").first?.count ?? 0 > 200)
    }

    @Test("JSON keeps the tree and its types")
    func json() throws {
        let out = JSONRenderer().render(Preview {
            Title("T")
            Metadata(["Lines": .integer(3), "Valid": .boolean(true)])
            List(ordered: true) { Text("one") }
            Note("cut", severity: .warning)
        })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "T")
        let elements = try #require(object["elements"] as? [[String: Any]])
        #expect(elements.map { $0["type"] as? String } == ["title", "metadata", "list", "note"])
        let fields = try #require(elements[1]["fields"] as? [[String: Any]])
        #expect(fields.first?["value"] as? Int == 3)
        #expect(fields.last?["value"] as? Bool == true)
        #expect(elements[3]["severity"] as? String == "warning")
    }
}
