import DocentKit
import Engine
import FileAccess
import Foundation
import HTTPTypes
import Hummingbird
import Index
import SystemPackage
import Testing
import TestSupport
@testable import Viewer

/// The reader in process: a real file indexed, its whole text served a stretch at a time,
/// opened at the first match with every match marked as the index matched it.
@Suite("The reader: whole documents opened at the match")
struct ReaderTests {
    let dir: TemporaryDirectory
    let index: FileIndex
    let token = String(repeating: "cd", count: 32)
    var cookie: HTTPFields { [.cookie: "docent-80=\(token)"] }

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/index/index.sqlite", privateDirectory: true)
    }

    func router(opener: [String] = ["/bin/false"]) -> Router<BasicRequestContext> {
        let documents = ViewerDocuments(budget: Settings.defaults().budget, previews: nil,
                                        thumbnails: ThumbnailCache(directory: dir.path + "/thumbnails"))
        return ViewerServer(index: index, documents: documents, commits: IndexChanges([any IndexCommits]()),
                            statusChanges: IndexChanges([any IndexCommits]()), token: token, bind: "127.0.0.1", port: 80, watching: false,
                            opener: opener)
            .router(boundPort: Locked(80))
    }

    /// Indexes `text` as `name` and returns its row's id.
    func indexed(_ name: String, _ text: String, word: String) throws -> Int64 {
        _ = try dir.write("root/" + name, text)
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        return try #require(try index.search(SearchRequest(match: .term(word), limit: 1)).first).id
    }

    @Test("A 1,002-line source file opens at line 119's match, marked, with '1 of 3'; the rest loads by stretches")
    func openedAtTheMatch() async throws {
        var lines = (1...1_002).map { "line \($0) of filler" }
        lines[118] = "    cache = memory.allocate(size)  # memory"
        lines[899] = "free(memory)"
        let id = try indexed("big.py", lines.joined(separator: "\n") + "\n", word: "memory")
        let cookie = self.cookie
        try await router().test { client in
            let page = String(buffer: try await client.execute(uri: "/doc/\(id)?q=memory", method: .get, headers: cookie).body)
            #expect(page.contains("<section id=\"reader\""))
            // The first screen does not wait for the count: it is asked for after.
            #expect(page.contains("data-lines=\"1002\"") && page.contains("data-pending=\"1\"") && !page.contains("data-matches"))
            #expect(page.contains("<li id=\"L119\" value=\"119\">    cache = <mark>memory</mark>.allocate(size)  # <mark>memory</mark></li>"))
            let marks = String(buffer: try await client.execute(uri: "/api/marks/\(id)?q=memory", method: .get, headers: cookie).body)
            #expect(marks == "{\"lines\":[119,119,900]}")
            let again = String(buffer: try await client.execute(uri: "/doc/\(id)?q=memory", method: .get, headers: cookie).body)
            #expect(again.contains("data-matches=\"119,119,900\"") && again.contains("1 of 3"), "once counted, the count comes with the page")
            #expect(page.contains("id=\"L99\"") && !page.contains("id=\"L98\""), "opened 20 lines above the first match")
            #expect(!page.contains("id=\"L900\""), "one stretch on the page; the rest as the reader scrolls")
            // The next stretch, and a jump to the last match.
            let stretch = String(buffer: try await client.execute(uri: "/api/lines/\(id)?q=memory&from=890&count=20", method: .get, headers: cookie).body)
            #expect(stretch.hasPrefix("<ol class=\"lines\" start=\"890\" data-from=\"890\" data-to=\"909\">"))
            #expect(stretch.contains("<li id=\"L900\" value=\"900\">free(<mark>memory</mark>)</li>"))
            let jumped = String(buffer: try await client.execute(uri: "/api/reader/\(id)?q=memory&from=880", method: .get, headers: cookie).body)
            #expect(jumped.contains("start=\"880\"") && jumped.contains("id=\"L900\""))
            // Without a query: the whole text from its start, nothing marked.
            let plain = String(buffer: try await client.execute(uri: "/doc/\(id)", method: .get, headers: cookie).body)
            #expect(plain.contains("id=\"L1\"") && !plain.contains("<mark>"))
            // Lines past the end, or a bad start: nothing, or a clear refusal.
            #expect(try await client.execute(uri: "/api/lines/\(id)?from=5000", method: .get, headers: cookie).status == .ok)
            #expect(try await client.execute(uri: "/api/lines/\(id)?from=0", method: .get, headers: cookie).status == .badRequest)
        }
    }

    @Test("Words typed apart open the reader at the compound the search matched (file system → filesystem), marked")
    func compoundMarked() async throws {
        var lines = (1...200).map { "line \($0) of filler" }
        lines[149] = "mount attaches the filesystem found on a device"
        _ = try dir.write("root/other.txt", "the filesystem again; a file system mentioned\n")
        let id = try indexed("mount.txt", lines.joined(separator: "\n") + "\n", word: "attaches")
        let cookie = self.cookie
        try await router().test { client in
            let page = String(buffer: try await client.execute(uri: "/doc/\(id)?q=mount+file+system", method: .get, headers: cookie).body)
            #expect(page.contains("<li id=\"L150\" value=\"150\"><mark>mount</mark> attaches the <mark>filesystem</mark> found on a device</li>"), "\(page)")
        }
    }

    @Test("A PDF's text page by page: each page's start known, its picture at its start, the form feed never shown")
    func pages() {
        let text = ReaderText("first\npage one\n\u{0C}second\nmore\n\u{0C}third", pictures: "/picture/7?v=1&page=")
        #expect(text.pages?.starts == [1, 3, 5])
        #expect([1, 2, 3, 4, 5].map(text.page(ofLine:)) == [1, 1, 2, 2, 3])
        #expect(ViewerServer.opening(text, at: 4) == 3, "a PDF opens at the start of the match's page")
        #expect(ViewerServer.opening(ReaderText("a\nb"), at: 40) == 20, "other texts 20 lines above the match")
        let html = ViewerServer.lines(text, marks: .none, from: 2, count: 3)
        #expect(html.hasPrefix("<ol class=\"lines\" start=\"2\" data-from=\"2\" data-to=\"4\" data-page=\"1\">"))
        #expect(html.contains("<li id=\"L3\" value=\"3\" class=\"page-start\" data-page=\"2\"><figure class=\"page\"><img src=\"/picture/7?v=1&amp;page=2\""))
        #expect(html.contains("Page 2 of 3</figcaption></figure>second</li>") && !html.contains("\u{0C}"))
        #expect(!ViewerServer.lines(ReaderText("a\n\u{0C}b"), marks: .none, from: 1, count: 2).contains("figure"), "form feeds in other texts are not pages")
    }

    @Test("Markup in the text is shown, never run; a very long line is cut with what is left said")
    func hostileText() async throws {
        let long = String(repeating: "x", count: 300_000)
        let id = try indexed("page.txt", "<script>alert(1)</script> needle\n\(long)\n", word: "needle")
        let cookie = self.cookie
        try await router().test { client in
            let page = String(buffer: try await client.execute(uri: "/doc/\(id)?q=needle", method: .get, headers: cookie).body)
            #expect(!page.contains("<script>alert") && page.contains("&lt;script&gt;alert(1)&lt;/script&gt; <mark>needle</mark>"))
            #expect(page.contains("more bytes on this line"))
        }
    }

    @Test("Results you can go through: the total, the next hits by offset, the page's order kept in its address")
    func paging() async throws {
        for i in 1...25 { _ = try dir.write("root/p\(String(format: "%02d", i)).txt", "pebble " + String(repeating: "x", count: i)) }
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        let cookie = self.cookie
        try await router().test { client in
            let first = String(buffer: try await client.execute(uri: "/api/search?q=pebble&sort=name", method: .get, headers: cookie).body)
            #expect(first.contains("25 matches · 1–20 shown"))
            #expect(first.components(separatedBy: "<li id=\"hit-").count - 1 == 20)
            #expect(first.contains("class=\"more\" href=\"/?q=pebble&amp;sort=name&amp;offset=20\" data-offset=\"20\">5 more of 5</a>"))
            let next = String(buffer: try await client.execute(uri: "/api/search?q=pebble&sort=name&offset=20", method: .get, headers: cookie).body)
            #expect(next.components(separatedBy: "<li id=\"hit-").count - 1 == 5 && !next.contains("class=\"more\""))
            #expect(next.contains("p21.txt") && !next.contains("p20.txt"), "by name: the 21st to the 25th")
            // The page itself, as a bookmark: the order chosen in its menu.
            let page = String(buffer: try await client.execute(uri: "/?q=pebble&sort=size", method: .get, headers: cookie).body)
            #expect(page.contains("<option value=\"size\" selected>largest</option>"))
            #expect(try #require(page.range(of: "p25.txt")).lowerBound < #require(page.range(of: "p24.txt")).lowerBound)
            // A bad order or offset is the default, never an error.
            #expect(try await client.execute(uri: "/api/search?q=pebble&sort=bogus&offset=-4", method: .get, headers: cookie).status == .ok)
        }
    }

    @Test("The file itself: its bytes inline only where a browser just shows them, markup as an attachment, never sniffed")
    func raw() async throws {
        _ = try dir.write("root/note.txt", "plain okapi text <b>not bold</b>")
        _ = try dir.write("root/page.html", "<html><body><script>alert(1)</script>okapi page</body></html>")
        try Data(SamplePDF.make(pages: 1, word: "okapi")).write(to: URL(fileURLWithPath: dir.path + "/root/manual.pdf"))
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        var ids: [String: Int64] = [:]
        for hit in try index.search(SearchRequest(match: .term("okapi"), limit: 10)) { ids[(hit.displayPath as NSString).lastPathComponent] = hit.id }
        let (cookie, root) = (self.cookie, dir.path + "/root")
        try await router().test { client in
            let text = try await client.execute(uri: "/raw/\(try #require(ids["note.txt"]))", method: .get, headers: cookie)
            #expect(text.status == .ok && text.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(text.headers[.contentDisposition] == "inline" && text.headers[.xContentTypeOptions] == "nosniff")
            #expect(String(buffer: text.body) == "plain okapi text <b>not bold</b>")
            let page = try await client.execute(uri: "/raw/\(try #require(ids["page.html"]))", method: .get, headers: cookie)
            #expect(page.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"page.html\"") == true)
            #expect(page.headers[.contentSecurityPolicy]?.contains("sandbox") == true)
            let pdf = try await client.execute(uri: "/raw/\(try #require(ids["manual.pdf"]))", method: .get, headers: cookie)
            #expect(pdf.headers[.contentType] == "application/pdf" && pdf.headers[.contentDisposition] == "inline")
            let size = try FileManager.default.attributesOfItem(atPath: root + "/manual.pdf")[.size] as? Int
            #expect(pdf.body.readableBytes == size)
            let download = try await client.execute(uri: "/raw/\(try #require(ids["note.txt"]))?download=1", method: .get, headers: cookie)
            #expect(download.headers[.contentDisposition]?.hasPrefix("attachment") == true)
        }
    }

    @Test("Open and Show in folder run the opener on the row's file, only when posted from the page itself")
    func openAndReveal() async throws {
        _ = try dir.write("root/sub/report.txt", "okapi report")
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        let id = try #require(try index.search(SearchRequest(match: .term("okapi"), limit: 1)).first).id
        let out = dir.path + "/opened"
        var sameOrigin = cookie
        sameOrigin[.secFetchSite] = "same-origin"
        let (cookie, headers, root) = (self.cookie, sameOrigin, dir.path + "/root")
        try await router(opener: ["/bin/sh", "-c", "printf '%s' \"$0\" > \(out).tmp && mv \(out).tmp \(out)"]).test { client in
            let notFromThePage = try await client.execute(uri: "/open/\(id)", method: .post, headers: cookie).status
            let byLink = try await client.execute(uri: "/open/\(id)", method: .get, headers: headers).status
            #expect(notFromThePage == .forbidden && byLink != .noContent, "only posted from the page: \(notFromThePage), \(byLink)")
            #expect(try await client.execute(uri: "/open/\(id)", method: .post, headers: headers).status == .noContent)
            #expect(Self.waitForFile(out) == root + "/sub/report.txt")
            try? FileManager.default.removeItem(atPath: out)
            #expect(try await client.execute(uri: "/reveal/\(id)", method: .post, headers: headers).status == .noContent)
            #expect(Self.waitForFile(out) == root + "/sub")
            #expect(try await client.execute(uri: "/open/99999", method: .post, headers: headers).status == .notFound)
        }
    }

    /// The file's text once the detached opener has written it (it runs on its own: a bounded wait).
    static func waitForFile(_ path: String) -> String? {
        for _ in 0..<100 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return text }
            usleep(50_000)
        }
        return nil
    }

    @Test("Identical files are one hit, the other places listed with it; files that only look alike stay apart")
    func identicalFiles() async throws {
        let licence = String(repeating: "Permission is granted to copy the walrus licence. ", count: 40)
        for place in ["a/LICENSE", "b/LICENSE", "c/COPYING"] { _ = try dir.write("root/" + place, licence) }
        _ = try dir.write("root/d/LICENSE", licence.replacingOccurrences(of: "copy", with: "cope"))  // same size, other text
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        let cookie = self.cookie
        try await router().test { client in
            let results = String(buffer: try await client.execute(uri: "/api/search?q=walrus", method: .get, headers: cookie).body)
            #expect(results.components(separatedBy: "<li id=\"hit-").count - 1 == 2, "the three copies as one hit, the other text apart")
            #expect(results.contains("The same file also at "))
            #expect(results.contains("4 matches"), "the total still counts every file")
        }
    }

    @Test("One document's typeset forms side by side are one hit, the other forms listed with it")
    func typesetForms() async throws {
        _ = try dir.write("root/m/walrus.pdf", String(decoding: SamplePDF.make(pages: 1, word: "pinniped"), as: UTF8.self))
        _ = try dir.write("root/m/walrus.ps", "%!PS-Adobe-3.0\n%%Title: pinniped care\n%%EndComments\n")
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        let cookie = self.cookie
        try await router().test { client in
            let results = String(buffer: try await client.execute(uri: "/api/search?q=pinniped", method: .get, headers: cookie).body)
            #expect(results.components(separatedBy: "<li id=\"hit-").count - 1 == 1, "\(results)")
            #expect(results.contains("The same document also as " + dir.path + "/root/m/walrus.p"))
        }
    }
}
