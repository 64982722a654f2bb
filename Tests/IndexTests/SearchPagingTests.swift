import Foundation
import Index
import Testing
import TestSupport

/// Results you can go through: the total, pages by offset, and orders other than relevance.
@Suite("Search: totals, pages and orders")
struct SearchPagingTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/index.sqlite")
        // 25 files about pebbles: sizes, names and times in different orders.
        try index.upsert((1...25).map { i in
            let text = "pebble " + String(repeating: "pebble ", count: i % 7) + String(repeating: "x", count: i * 10)
            return file("/r/\(String(format: "%02d", (i * 7) % 25))-\(i).txt", text, inode: Int64(i), modified: Int64(1_000 + (i * 11) % 25))
        } + [file("/r/other.txt", "no such stone", inode: 99)])
    }

    func search(_ order: SearchOrder = .relevance, offset: Int = 0, limit: Int = 10) throws -> [SearchHit] {
        var request = SearchRequest(match: .term("pebble"), limit: limit)
        (request.order, request.offset) = (order, offset)
        return try index.search(request)
    }

    @Test("The total counts every match; the pages by offset cover them all, once each, in the same order")
    func pages() throws {
        #expect(try index.count(SearchRequest(match: .term("pebble"))) == 25)
        #expect(try index.count(SearchRequest(match: .term("stone"))) == 1)
        #expect(try index.count(SearchRequest(match: nil)) == 26, "filters alone count every row")
        let all = try search(limit: 25).map(\.id)
        let paged = try (0..<3).flatMap { try search(offset: $0 * 10).map(\.id) }
        #expect(paged == all && Set(paged).count == 25)
        #expect(try search(offset: 25).isEmpty)
    }

    @Test("Orders: newest first, by name, largest first; a page of each continues it", arguments: [SearchOrder.modified, .name, .size])
    func orders(order: SearchOrder) throws {
        let hits = try search(order, limit: 25)
        let rows = try hits.map { try #require(try index.file(at: $0.path)) }
        switch order {
        case .modified: #expect(rows.map(\.modified) == rows.map(\.modified).sorted(by: >))
        case .name: #expect(hits.map { $0.displayPath.lowercased() } == hits.map { $0.displayPath.lowercased() }.sorted())
        case .size: #expect(rows.map(\.size) == rows.map(\.size).sorted(by: >))
        case .relevance: break
        }
        #expect(try search(order, offset: 10, limit: 5).map(\.id) == Array(hits[10..<15].map(\.id)))
    }
}

@Suite("Snippets as people read them")
struct ReadableSnippetTests {
    @Test("Debris between words goes, NFC, spaces as one; the match markers stay")
    func debris() {
        let hit = SearchHit(id: 1, path: [], contentType: "public.plain-text", title: nil, score: 0,
                            snippet: "\u{25A1}This \u{2500}\u{2500}\u{2500} is\u{1}\u{2}cafe\u{301}\u{3}  \u{FFFD}end\u{E001}", modified: 0)
        #expect(hit.readableSnippet == "This is \u{2}café\u{3} end ")
        // A table of contents' dot leaders as one ellipsis; a sentence's own "..." stays.
        let contents = SearchHit(id: 2, path: [], contentType: "com.adobe.pdf", title: nil, score: 0,
                                 snippet: "28.5 Polynomial \u{2}Interpolation\u{3} . . . . . . . . 803 29 Splines........815 and so on...", modified: 0)
        #expect(contents.readableSnippet == "28.5 Polynomial \u{2}Interpolation\u{3} … 803 29 Splines … 815 and so on...")
    }

    @Test("A snippet never starts inside a word: `__all__` is shown whole")
    func wholeWord() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        let filler = (0..<40).map { "word\($0)" }.joined(separator: " ")
        try index.upsert([file("/r/m.py", filler + " __all__ = ['okapi']")])
        let snippet = try #require(try index.search(SearchRequest(match: .term("okapi"))).first).readableSnippet
        #expect(snippet.contains("__all__"), "\(snippet)")
    }
}

/// A long page is made as a short one is: the first hits the same, a snippet for every hit.
@Suite("Search: long pages")
struct LongPageTests {
    @Test("A page of 300 begins with the page of 20, every hit has the snippet it has on a short page, in one pass over the match")
    func longPage() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        // 300 files with the word, some near another word (ranking looks at nearness), and
        // files without it among them.
        try index.upsert((0..<600).map { i in
            let text = i % 2 == 0 ? "filler words \(i) then the granite quarry \(i % 3 == 0 ? "granite stone" : "granite") and more" : "nothing here \(i)"
            return file("/r/\(i).txt", text, inode: Int64(i + 1), modified: Int64(i))
        })
        var request = SearchRequest(match: .and([.term("granite"), .term("quarry")]), limit: 300)
        let long = try index.search(request)
        #expect(long.count == 300 && Set(long.map(\.id)).count == 300)
        request.limit = 20
        let short = try index.search(request)
        #expect(Array(long.prefix(20).map(\.id)) == short.map(\.id))
        // Every snippet as a page of one makes it (the short path, `rowid IN`).
        for hit in long.shuffled().prefix(40) {
            var one = SearchRequest(match: .and([.term("granite"), .term("quarry")]), limit: 1)
            one.paths = [hit.path]
            #expect(try index.search(one).first?.snippet == hit.snippet)
            #expect(hit.snippet.contains("granite"))
        }
    }
}
