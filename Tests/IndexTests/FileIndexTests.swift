import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

func file(_ path: String, _ text: String, type: String = "public.plain-text", title: String? = nil,
          inode: Int64 = 1, modified: Int64 = 1) -> IndexedFile {
    IndexedFile(path: Array(path.utf8), device: 1, inode: inode, size: Int64(text.utf8.count), modified: modified,
                changed: modified, contentType: type, title: title, text: text)
}

@Suite("FileIndex: schema, rows and full-text search")
struct FileIndexTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/data/docent/index.sqlite")
        try index.upsert([
            file("/r/notes/plan.md", "We are running the migration on Monday", type: "net.daringfireball.markdown", title: "Migration plan", inode: 1, modified: 10),
            file("/r/src/parser.swift", "func parseHTTPResponse(data: Data) { let max_retry_count = 3 }", type: "public.swift-source", inode: 2, modified: 20),
            file("/r/src/util.py", "import os.path\nprint(os.path.join('a', 'b'))", type: "public.python-script", inode: 3, modified: 30),
            file("/r/migration.txt", "nothing to see", inode: 4, modified: 40),
            file("/r/café.txt", "Crème brûlée recipe", inode: 5, modified: 50),
        ])
    }

    func paths(_ match: FTSExpression?, types: Set<String>? = nil) throws -> [String] {
        try index.search(SearchRequest(match: match, contentTypes: types, limit: 50)).map(\.displayPath)
    }

    @Test("Words, stems, phrases, prefixes, OR, NOT, diacritics", arguments: [
        (FTSExpression.term("monday"), ["/r/notes/plan.md"]),
        (.term("run"), ["/r/notes/plan.md"]),  // porter: running → run
        (.phrase(["migration", "on", "monday"]), ["/r/notes/plan.md"]),
        (.phrase(["monday", "migration"]), []),
        (.prefix("recip"), ["/r/café.txt"]),
        (.term("creme"), ["/r/café.txt"]),  // diacritics folded
        (.or([.term("recipe"), .term("monday")]), ["/r/café.txt", "/r/notes/plan.md"]),
        (.not(.term("migration"), .term("monday")), ["/r/migration.txt"]),
        (.columns(["name"], .term("migration")), ["/r/migration.txt"]),
    ])
    func queries(match: FTSExpression, expected: [String]) throws {
        #expect(Set(try paths(match)) == Set(expected))
    }

    @Test("Code identifiers are found by their parts and whole")
    func identifiers() throws {
        let parser = ["/r/src/parser.swift"]
        #expect(try paths(.term("parseHTTPResponse")) == parser)
        #expect(try paths(.term("HTTP")) == parser)
        #expect(try paths(.term("response")) == parser)
        #expect(try paths(.term("retry")) == parser)  // snake_case parts
        #expect(try paths(.phrase(["max", "retry", "count"])) == parser)  // and whole, as a phrase
        #expect(try paths(.phrase(["os", "path", "join"])) == ["/r/src/util.py"])  // dotted names
    }

    @Test("A match in the name ranks above one in the body; snippets mark the match")
    func ranking() throws {
        let hits = try index.search(SearchRequest(match: .term("migration")))
        #expect(hits.first?.displayPath == "/r/migration.txt")
        #expect(hits.count == 2)
        let plan = try #require(hits.first { $0.displayPath == "/r/notes/plan.md" })
        #expect(plan.snippet.contains("\(SearchHit.matchStart)migration\(SearchHit.matchEnd)"))
        #expect(plan.score > 0)
    }

    @Test("Type filters take the identifiers the caller expanded through conformance")
    func typeFilter() throws {
        #expect(Set(try paths(nil, types: ["public.swift-source", "public.python-script"])) == ["/r/src/parser.swift", "/r/src/util.py"])
        #expect(try paths(.term("migration"), types: ["net.daringfireball.markdown"]) == ["/r/notes/plan.md"])
    }

    @Test("User text is always quoted: FTS5 syntax in a word is just characters")
    func hostileTerms() throws {
        for word in ["\"", "a\" OR \"b", "NEAR(x y)", "*", "col:umn", "^start", "-x", "'); DROP TABLE files; --"] {
            #expect(try paths(.term(word)).isEmpty, "\(word)")
        }
        #expect(try index.count() == 5)
    }

    @Test("Remove, replace, move and signatures")
    func rows() throws {
        try index.upsert([file("/r/migration.txt", "now about tea", inode: 4, modified: 41)])
        #expect(try index.count() == 5)
        #expect(try paths(.term("tea")) == ["/r/migration.txt"])
        #expect(try paths(.term("nothing")).isEmpty)

        try index.move(from: Array("/r/migration.txt".utf8), to: Array("/r/renamed.txt".utf8))
        #expect(try paths(.term("tea")) == ["/r/renamed.txt"])
        #expect(try paths(.columns(["name"], .term("renamed"))) == ["/r/renamed.txt"])
        #expect(try index.file(at: Array("/r/renamed.txt".utf8))?.inode == 4)

        let under = try index.signatures(under: Array("/r/src".utf8))
        #expect(Set(under.keys.map { String(decoding: $0, as: UTF8.self) }) == ["/r/src/parser.swift", "/r/src/util.py"])
        #expect(try index.remove([Array("/r/src/util.py".utf8), Array("/r/absent".utf8)]) == 1)
        #expect(try index.count() == 4)
    }

    @Test("Names that are not UTF-8 keep their bytes")
    func rawPaths() throws {
        let raw: [UInt8] = Array("/r/ba".utf8) + [0xFF] + Array("d.txt".utf8)
        try index.upsert([IndexedFile(path: raw, device: 1, inode: 9, size: 1, modified: 1, changed: 1, contentType: "public.plain-text", text: "zebra")])
        #expect(try index.search(SearchRequest(match: .term("zebra"))).first?.path == raw)
    }

    @Test("An index made by a newer Docent is refused, untouched")
    func newerSchema() throws {
        let path = dir.path + "/newer.sqlite"
        _ = try FileIndex(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        #expect(throws: IndexError.self) { try FileIndex(path: path) }
        do {
            _ = try FileIndex(path: path)
        } catch {
            #expect(error.description.contains("made by a newer Docent"))
        }
    }

    @Test("A search reads while a writer holds a transaction (WAL)")
    func readerDoesNotWait() throws {
        let writer = try DatabaseQueue(path: index.path)
        try writer.inTransaction {
            try $0.execute(sql: "UPDATE files SET title = 'held' WHERE inode = 1")
            // The reader sees the last committed state at once instead of waiting.
            #expect(try paths(.term("monday")) == ["/r/notes/plan.md"])
            return .rollback
        }
    }
}
