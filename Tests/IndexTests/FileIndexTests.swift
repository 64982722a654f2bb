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

    @Test("Typed files are walked a page at a time, in the order of their paths, each once")
    func typedFilesInPages() throws {
        var all: [[UInt8]] = []
        var last: [UInt8]?
        while case let page = try index.typedFiles(after: last, limit: 2), let end = page.last {
            #expect(page.count <= 2)
            all += page.map(\.path)
            last = end.path
        }
        let expected = try index.typedFiles(after: nil, limit: 1_000).map(\.path)
        #expect(all == expected && !all.isEmpty)
        #expect(all == all.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(Set(all).count == all.count)
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

    @Test("A prefix's hits have snippets marking the words it matched (made in one pass over the match), and only the hits asked for")
    func prefixSnippets() throws {
        let endings = ["a kettle", "two kettles", "no such word"]
        try index.upsert((0..<30).map { (i: Int) -> IndexedFile in
            let body: String = "filler \(i) then " + endings[i % 3]
            return file("/r/k\(i).txt", body, inode: Int64(100 + i))
        })
        var request = SearchRequest(match: .prefix("kett"), limit: 5)
        let hits = try index.search(request)
        #expect(hits.count == 5)
        for hit in hits {
            #expect(hit.snippet.contains("\(SearchHit.matchStart)kettle"), "\(hit.displayPath): \(hit.snippet)")
        }
        // Every match, past the window ranked again, each with its snippet.
        request.limit = 100
        let all = try index.search(request)
        #expect(all.count == 20 && all.allSatisfy { $0.snippet.contains(SearchHit.matchStart) })
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

    @Test("A batch of new paths and paths already held: the new inserted, the held updated in place (same id), the inverted index as if made afresh")
    func mixedBatch() throws {
        func id(_ path: String) throws -> Int64? { try index.read { try Int64.fetchOne($0, sql: "SELECT id FROM files WHERE path = ?", arguments: [Data(path.utf8)]) } }
        let before = try #require(try id("/r/migration.txt"))
        try index.upsert([
            file("/r/new-a.txt", "kiwi orchard", inode: 40),
            file("/r/migration.txt", "now about kiwi and tea", inode: 4, modified: 41),
            file("/r/new-b.txt", "kiwi harvest", inode: 41),
        ])
        #expect(try index.count() == 7)
        #expect(try id("/r/migration.txt") == before, "updated in place")
        #expect(try Set(paths(.term("kiwi"))) == ["/r/new-a.txt", "/r/migration.txt", "/r/new-b.txt"])
        #expect(try paths(.term("tea")) == ["/r/migration.txt"])
        #expect(try paths(.term("nothing")).isEmpty, "the old text's words are gone")
        try index.write { try $0.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('integrity-check', 1)") }
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

    @Test("Damage in the schema is named by the object, without its SQL")
    func damagedSchemaMessage() {
        let message = #"malformed database schema (ranked_updated) - unrecognized token: "'ON files WHEN EXISTS (SELECT 1 FROM ranked_logging)""#
        let error = IndexError(DatabaseError(resultCode: .SQLITE_CORRUPT, message: message), path: "/i.sqlite")
        #expect(error.description.contains("malformed database schema (ranked_updated)"))
        #expect(!error.description.contains("SELECT") && !error.description.contains("token"))
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

    @Test("name: globs: the literal start narrows through the folded-name index; the glob decides")
    func nameGlobs() throws {
        try index.upsert([
            file("/r/README.md", "read me", inode: 10), file("/r/readme", "read me too", inode: 11),
            file("/r/ReadMf.txt", "not a readme", inode: 12), file("/r/READ.md", "short", inode: 13),
            file("/r/docs/README-ja.md", "翻訳", inode: 14), file("/r/Été.txt", "summer", inode: 15),
        ])
        func names(_ glob: String) throws -> [String] {
            var request = SearchRequest(match: nil, limit: 50)
            request.nameGlobs = [glob]
            return try index.search(request).map(\.displayPath).sorted()
        }
        #expect(try names("README*") == ["/r/README.md", "/r/docs/README-ja.md", "/r/readme"])
        #expect(try names("readm?.txt") == ["/r/ReadMf.txt"])
        #expect(try names("*.md") == ["/r/READ.md", "/r/README.md", "/r/docs/README-ja.md", "/r/notes/plan.md"])
        #expect(try names("[rR]ead.md") == ["/r/READ.md"])
        #expect(try names("caf*") == ["/r/café.txt"])
        #expect(FileIndex.literalRange(ofGlob: "readme*")! == ("readme", "readmf"))
        #expect(FileIndex.literalRange(ofGlob: "café*")! == ("café", "cag"))
        #expect(FileIndex.literalRange(ofGlob: "*.md") == nil)
        // The range is answered from the index, not by a scan of every row.
        let plan = try DatabaseQueue(path: index.path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM files WHERE lower(name) GLOB 'readme*' AND lower(name) >= 'readme' AND lower(name) < 'readmf'").map { $0["detail"] as String }
        }
        #expect(plan.joined().contains("files_folded_name"), "\(plan)")
    }

    @Test("`*.md` and `ext:md` through the index on the extension: the same files as testing every name")
    func lastExtension() throws {
        let names = ["a.md", "B.MD", ".md", "c.b.md", "md", "d.md.", "e.mdx", "f.tar.gz", "g.gz", "h%.md", "i_md", "j.m_", "k.m%"]
        try index.upsert(names.enumerated().map { i, name in file("/e/" + name, "words", inode: Int64(100 + i)) })
        func found(globs: [String] = [], extensions: [String] = []) throws -> [String] {
            var request = SearchRequest(match: nil, limit: 50)
            (request.nameGlobs, request.extensions, request.directories) = (globs, extensions, [Array("/e".utf8)])
            return try index.search(request).map(\.displayPath).sorted()
        }
        // What testing every name says: the folded name ends with a dot and the extension.
        func ending(_ ends: [String]) -> [String] {
            names.filter { name in ends.contains { name.lowercased().hasSuffix("." + $0) } }.map { "/e/" + $0 }.sorted()
        }
        for ext in ["md", "MD", "gz", "tar.gz", "m_", "m%", "mdx"] {
            #expect(try found(extensions: [ext]) == ending([ext.lowercased()]), "ext:\(ext)")
            #expect(try found(globs: ["*." + ext]) == ending([ext.lowercased()]), "name:*.\(ext)")
        }
        #expect(try found(extensions: ["md", "gz"]) == ending(["md", "gz"]))
        #expect(try found(globs: ["*.m?"]) == ending(["md", "m_", "m%"]), "a wildcard after the dot: the glob alone")
        #expect(try found(globs: ["*.md", "?.md"]) == ["/e/B.MD", "/e/a.md"], "both globs hold")
        // With words, the matches are tested as before: the same files.
        var worded = SearchRequest(match: .term("words"), limit: 50)
        (worded.nameGlobs, worded.extensions) = (["*.md"], ["md"])
        #expect(try index.search(worded).map(\.displayPath).sorted() == ending(["md"]))
        // Answered from the index, not by reading every name: the search's own conditions.
        for (globs, extensions) in [(["*.md"], [String]()), ([], ["md"]), ([], ["md", "gz"])] {
            var request = SearchRequest(match: nil, limit: 50)
            (request.nameGlobs, request.extensions) = (globs, extensions)
            let (conditions, arguments) = try #require(index.conditions(request))
            let plan = try DatabaseQueue(path: index.path).read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT files.id FROM files WHERE " + conditions.joined(separator: " AND "),
                                 arguments: StatementArguments(arguments.map { $0.databaseValue })).map { $0["detail"] as String }
            }
            #expect(plan.joined().contains("files_extension"), "\(globs) \(extensions): \(plan)")
        }
    }

    @Test("A stored text's prefix is decompressed only so far, cut at whole characters")
    func storedTextPrefix() throws {
        let long = String(repeating: "é日x", count: 100_000)  // 6 bytes a round, compressed
        let stored = StoredText.deflate(long)
        #expect(stored.first == 1)
        #expect(StoredText.inflate(stored) == long)
        for limit in [0, 1, 2, 3, 4, 5, 6, 7, 480, 600_000, 10_000_000] {
            let prefix = try #require(StoredText.inflate(stored, prefix: limit))
            #expect(long.hasPrefix(prefix) && !prefix.contains("\u{FFFD}"), "\(limit)")
            #expect(prefix.utf8.count <= limit && prefix.utf8.count > limit - 4 || limit >= 600_000 && prefix == long, "\(limit)")
        }
        // A long text with separators is stored in blocks, read back whole and by prefix,
        // across blocks' edges; a table that points past the end is not a stored text.
        let blocked = String(repeating: "word é日 ", count: 120_000)  // 1.2 MB
        let blocks = StoredText.deflate(blocked)
        #expect(blocks.first == 2 && blocks.count < blocked.utf8.count / 4)
        #expect(StoredText.inflate(blocks) == blocked)
        for limit in [0, 5, 480, StoredText.blockSize - 1, StoredText.blockSize + 7, 700_001, 2_000_000] {
            let prefix = try #require(StoredText.inflate(blocks, prefix: limit))
            #expect(blocked.hasPrefix(prefix) && prefix.utf8.count > min(limit, blocked.utf8.count) - 4, "\(limit)")
        }
        // A limit past the text (the reader asks for all of it) costs the text's size, not the limit's.
        #expect(StoredText.inflate(blocks, prefix: .max) == blocked && StoredText.inflate(stored, prefix: .max) == long)
        #expect(StoredText.inflate(blocks.prefix(40)) == nil && StoredText.inflate(Data([2, 9, 0, 0, 0, 1, 2]), prefix: 5) == nil)
        let short = StoredText.deflate("court")  // stored as it is
        #expect(short.first == 0 && StoredText.inflate(short, prefix: 3) == "cou")
        #expect(StoredText.inflate(Data([1, 0x28, 0xB5, 0x2F, 0xFD, 9, 9]), prefix: 10) == nil)
        // Filters alone show the start of each file's text.
        var request = SearchRequest(match: nil, limit: 50)
        request.nameGlobs = ["plan.md"]
        #expect(try index.search(request).first?.snippet == "We are running the migration on Monday")
    }

    @Test("The searching opener reads a current index with one connection and opens any other as init does")
    func searchingOpener() throws {
        let current = try FileIndex.searching(path: index.path)
        #expect(current.pool is DatabaseQueue)
        #expect(try current.search(SearchRequest(match: .term("monday"))).map(\.displayPath) == ["/r/notes/plan.md"])
        // An index one migration behind is migrated (through the pool), then searched.
        let older = dir.path + "/older.sqlite"
        _ = try FileIndex(path: older)
        try DatabaseQueue(path: older).write { db in
            try db.execute(sql: "DROP INDEX files_folded_name; DELETE FROM grdb_migrations WHERE identifier = 'v6'")
        }
        let migrated = try FileIndex.searching(path: older)
        #expect(migrated.pool is DatabasePool)
        #expect(try FileIndex.searching(path: older).pool is DatabaseQueue)
        // A newer one is refused, as init refuses it.
        let newer = dir.path + "/newer.sqlite"
        _ = try FileIndex(path: newer)
        try DatabaseQueue(path: newer).write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        #expect { try FileIndex.searching(path: newer) } throws: { "\($0)".contains("made by a newer Docent") }
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

@Suite("Unchanged, one rule")
struct SignatureComparisonTests {
    static let recorded = FileSignature(device: 1, inode: 10, size: 100, modified: 5, changed: 6)

    @Test("A recorded signature against the file now: unchanged, renamed, remounted or changed",
          arguments: [
              (FileSignature(device: 1, inode: 10, size: 100, modified: 5, changed: 6), FileSignature.Comparison.unchanged),
              (FileSignature(device: 1, inode: 10, size: 100, modified: 5, changed: 9), .renamed),  // a rename moves ctime
              (FileSignature(device: 2, inode: 10, size: 100, modified: 5, changed: 6), .remounted),
              (FileSignature(device: 2, inode: 77, size: 100, modified: 5, changed: 9), .remounted),  // new inodes after a remount
              (FileSignature(device: 1, inode: 11, size: 100, modified: 5, changed: 6), .changed),  // replaced on the same device
              (FileSignature(device: 1, inode: 10, size: 101, modified: 5, changed: 6), .changed),
              (FileSignature(device: 1, inode: 10, size: 100, modified: 7, changed: 6), .changed),
              (FileSignature(device: 2, inode: 10, size: 100, modified: 7, changed: 6), .changed),
          ])
    func comparison(current: FileSignature, expected: FileSignature.Comparison) {
        #expect(Self.recorded.compared(to: current) == expected)
    }
}
