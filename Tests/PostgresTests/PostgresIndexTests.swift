import Foundation
import Index
import Testing
import TestSupport
@testable import PostgresIndex

/// The query language in tsquery terms, without a server.
@Suite("PostgreSQL: the query language as tsquery")
struct TSQueryTests {
    @Test("Each form of the query language becomes its tsquery, every word quoted", arguments: [
        ("migration", "'migration'"),
        ("\"free software\"", "('free' <-> 'software')"),
        ("licen*", "'licen':*"),
        ("tea OR coffee", "('tea' | 'coffee')"),
        ("tea -coffee", "('tea' & !'coffee')"),
        ("title:plan", "'plan':B"),
        ("title:\"big plan\"", "('big':B <-> 'plan':B)"),
        ("os.path.join", "'os path join'"),
        ("it's", "'it''s'"),
        ("...", "('nothing' & !'nothing')"),
        ("文", "'文':*"),
    ])
    func translation(query: String, expected: String) throws {
        let parsed = try SearchQuery.parse(query)
        #expect(TSQuery.text(try #require(parsed.match)) == expected)
    }

    @Test("Globs become anchored regular expressions; array literals and addresses are escaped")
    func escaping() {
        #expect(TSQuery.regex(ofGlob: "readme*") == "^readme.*$")
        #expect(TSQuery.regex(ofGlob: "a?.(b)[ch]") == "^a.\\.\\(b\\)[ch]$")
        #expect(PostgresIndex.arrayLiteral(["a\"b", "c\\d", "e,f"]) == "{\"a\\\"b\",\"c\\\\d\",\"e,f\"}")
        #expect(Connection.redacted("postgresql://me:secret@db.example/docent") == "postgresql://me:%E2%80%A6@db.example/docent")
        #expect(!Connection.redacted("host=db password=secret dbname=docent").contains("secret"))
    }
}

/// The store against a real server (Debian's PostgreSQL, started in a temporary directory).
@Suite("PostgreSQL: the store against a real server", .serialized)
struct PostgresStoreTests {
    let server: PostgresServer
    let state: TemporaryDirectory

    init() throws {
        server = try PostgresServer()
        try server.createDatabase()
        state = try TemporaryDirectory()
    }

    func store(host: String = "here") throws -> PostgresIndex {
        try PostgresIndex(address: server.address(), host: host, stateDirectory: state.path, reconnectWindow: 5)
    }

    func file(_ path: String, text: String, title: String? = nil) -> IndexedFile {
        IndexedFile(path: Array(path.utf8), device: 1, inode: Int64(path.hashValue & 0xFFFF), size: Int64(text.utf8.count), modified: 1,
                    changed: 1, contentType: "public.plain-text", title: title, text: text)
    }

    @Test("Hostile texts and names: NUL characters, a name that is not UTF-8, a text too large for one tsvector")
    func hostileRows() throws {
        let index = try store()
        // 60,000 distinct words 15 times: with their positions over tsvector's megabyte, the
        // words alone not — all are kept, without positions.
        let long = (0..<15).map { _ in (0..<60_000).map { "w\($0)" }.joined(separator: " ") }.joined(separator: " ") + " needle"
        // 200,000 distinct words: even without positions over the megabyte — kept as far as they fit.
        let huge = (0..<200_000).map { "h\($0)" }.joined(separator: " ") + " haystack"
        var odd = file("/r/x", text: "odd bytes in the name")
        odd.path = Array("/r/caf".utf8) + [0xE9, 0xFF] + Array(".txt".utf8)
        try index.upsert([file("/r/nul.txt", text: "before\0after nulword"), odd, file("/r/long.txt", text: long), file("/r/huge.txt", text: huge)])
        func paths(_ query: String) throws -> [[UInt8]] {
            try index.search(SearchRequest(match: try SearchQuery.parse(query).match, limit: 10)).map(\.path)
        }
        #expect(try paths("nulword") == [Array("/r/nul.txt".utf8)])
        #expect(try paths("odd") == [odd.path], "a path's bytes come back exactly")
        #expect(try paths("needle") == [Array("/r/long.txt".utf8)])
        #expect(try paths("w59999") == [Array("/r/long.txt".utf8)])
        #expect(try paths("h0") == [Array("/r/huge.txt".utf8)])
        #expect(try paths("haystack").isEmpty, "past a megabyte of distinct words, the rest of a text is not searchable")
        #expect(try index.signatures(in: Array("/r".utf8)).count == 4)
        #expect(try index.storedText(id: try #require(try index.search(SearchRequest(match: .term("needle"), limit: 1)).first).id, limit: 3) == "w0 ")
    }

    @Test("The words Docent makes for the server are those the server makes itself: every stored row's vectors equal the server's functions over its columns")
    func wordsMadeByDocent() throws {
        let index = try store()
        // Joining characters, accents, CJK, NUL, a character of four bytes straddling the 1,024th
        // character, identifier pieces, and texts on both sides of the short-words bound.
        let edge = String(repeating: "é", count: 1_023) + "𝄞 next.word"
        let mixed = "report.pdf /usr/bin user@example.org a:b ~x +y \\z =w 3.14 naïve Ärger 東京タワー before\0after getHTTPResponseCode"
        let long = String(repeating: "alpha.beta/gamma café getFooBar ", count: 8_000)  // ~260 KB: the PL/pgSQL path
        try index.upsert([file("/w/mixed.txt", text: mixed, title: "A title.with:joins"), file("/w/edge.txt", text: edge),
                          file("/w/long.txt", text: long), file("/w/empty.txt", text: "")])
        #expect(PostgresIndex.words(long, parts: "").all.utf8.count > PostgresIndex.shortWordsBytes)
        let differing = try server.psql("""
            SELECT count(*) FILTER (WHERE fts != docent_vector(name, title, body, metadata, parts)
                                       OR rank_fts != docent_rank_vector(name, title, body, metadata)), count(*)
            FROM docent_files
            """)
        #expect(differing == "0|4")
    }

    @Test("Each host owns its rows: another's reconcile, removals and moves never touch them; searches see both")
    func hostsOwnTheirRows() throws {
        let here = try store(host: "here"), there = try store(host: "there")
        try here.upsert([file("/shared/a.txt", text: "apple here"), file("/shared/b.txt", text: "banana here")])
        try there.upsert([file("/shared/a.txt", text: "apple there")])
        #expect(try here.count() == 2 && there.count() == 1)
        #expect(try here.removeTree(Array("/shared".utf8)) == 2)
        #expect(try there.count() == 1)
        try there.moveTree(from: Array("/shared".utf8), to: Array("/moved".utf8))
        let hits = try here.search(SearchRequest(match: .term("apple"), limit: 10))
        #expect(hits.map(\.host) == ["there"] && hits.map(\.displayPath) == ["/moved/a.txt"])
        try there.move(from: Array("/moved/a.txt".utf8), to: Array("/moved/avocado.txt".utf8))
        #expect(try here.search(SearchRequest(match: .term("avocado"), limit: 10)).map(\.displayPath) == ["/moved/avocado.txt"],
                "a renamed file is found by its new name")
        #expect(try here.search(SearchRequest(match: .term("txt"), limit: 10)).count == 1, "the old name's words are gone with it")
        let stats = try there.statistics()
        #expect(stats.hosts == ["there": 1] && stats.files == 1)
    }

    @Test("A database made by a newer Docent is refused, not touched")
    func newerSchema() throws {
        _ = try store()
        _ = try server.psql("INSERT INTO docent_migrations (identifier) VALUES ('v999')")
        #expect {
            _ = try store()
        } throws: { error in
            guard let error = error as? IndexError, case .newerSchema = error else { return false }
            return true
        }
    }

    @Test("Hosts opening a new database at once: one makes the schema, the others wait for it")
    func concurrentMigration() throws {
        let address = server.address(), directory = state.path
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 6) { i in
            do { _ = try PostgresIndex(address: address, host: "h\(i)", stateDirectory: directory) } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try server.psql("SELECT count(*) FROM docent_migrations") == String(PostgresIndex.migrations.count), "each migration once")
    }
}

/// A value behind a lock, for the concurrent test.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
