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

    func router() -> Router<BasicRequestContext> {
        let documents = ViewerDocuments(budget: Settings.defaults().budget, previews: nil,
                                        thumbnails: ThumbnailCache(directory: dir.path + "/thumbnails"))
        return ViewerServer(index: index, documents: documents, commits: IndexChanges([any IndexCommits]()),
                            statusChanges: IndexChanges([any IndexCommits]()), token: token, bind: "127.0.0.1", port: 80, watching: false)
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
            #expect(page.contains("data-lines=\"1002\"") && page.contains("data-matches=\"119,119,900\""))
            #expect(page.contains("<li id=\"L119\" value=\"119\">    cache = <mark>memory</mark>.allocate(size)  # <mark>memory</mark></li>"))
            #expect(page.contains("1 of 3"))
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
}
