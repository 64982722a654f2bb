import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

/// `docent_rank(…, k)` skips the length lookup of rows that cannot be among the k best: the
/// rows kept, their order and their scores must be those of ranking every row, for any index
/// and any query (a property test over seeded random indexes and queries).
@Suite("Ranking bounded by the top k")
struct TopRankTests {
    /// Words with Zipf-like frequencies (the first most often), so some queries match most rows.
    static let vocabulary = ["ark", "bay", "cove", "dune", "fen", "glen", "heath", "isle", "knoll", "loch",
                             "moor", "ness", "oxbow", "peak", "quay", "reef", "spit", "tor", "vale", "weir"]

    static func word(_ rng: inout SplitMix) -> String {
        // P(rank r) ∝ 1/r over the vocabulary.
        let weights = (1...vocabulary.count).map { 1.0 / Double($0) }
        var u = Double(rng.next() % 1_000_000) / 1_000_000 * weights.reduce(0, +)
        for (i, w) in weights.enumerated() {
            u -= w
            if u <= 0 { return vocabulary[i] }
        }
        return vocabulary[vocabulary.count - 1]
    }

    /// An index of `count` files: bodies of 1 to 600 words, some words in names and titles.
    static func index(_ dir: TemporaryDirectory, count: Int, seed: UInt64) throws -> FileIndex {
        let index = try FileIndex(path: dir.path + "/index-\(seed).sqlite")
        var rng = SplitMix(seed: seed)
        var rows: [IndexedFile] = []
        for i in 0..<count {
            let length = 1 + Int(rng.next() % (rng.next() % 4 == 0 ? 600 : 40))
            let body = (0..<length).map { _ in word(&rng) }.joined(separator: " ")
            let title = rng.next() % 4 == 0 ? (0..<(1 + Int(rng.next() % 3))).map { _ in word(&rng) }.joined(separator: " ") : nil
            let ext = ["txt", "md", "MD", "py", "tar.gz", ""][Int(rng.next() % 6)]
            let name = (rng.next() % 5 == 0 ? word(&rng) + "-\(i)" : "file-\(i)") + (ext.isEmpty ? "" : "." + ext)
            let type = ["public.plain-text", "net.daringfireball.markdown", "com.adobe.pdf", "public.python-script"][Int(rng.next() % 4)]
            rows.append(file("/r/\(name)", body, type: type, title: title, inode: Int64(i + 1), modified: Int64(rng.next() % 50)))
        }
        try index.upsert(rows)
        return index
    }

    static func query(_ rng: inout SplitMix) -> String {
        let a = word(&rng), b = word(&rng), c = word(&rng)
        switch rng.next() % 7 {
        case 0: return a
        case 1: return "\(a) \(b)"
        case 2: return "\(a) OR \(b)"
        case 3: return "\"\(a) \(b)\""
        case 4: return "\(a) NOT \(b)"
        case 5: return "\(a) OR \(b) OR \(c)"
        default: return String(a.prefix(2)) + "*"
        }
    }

    /// The ranked rows of `query`: (rowid, score), best first, ties to the newer row; `k` given
    /// to the rank function or not.
    static func ranked(_ index: FileIndex, _ query: String, limit: Int, bounded: Bool) throws -> [(Int64, Double)] {
        try index.read { db in
            try Row.fetchAll(db, sql: """
                SELECT rowid, -docent_rank(files_fts, \(FileIndex.weights)\(bounded ? ", \(limit)" : "")) AS score
                FROM files_fts WHERE files_fts MATCH ? ORDER BY score DESC, rowid DESC LIMIT ?
                """, arguments: [query, limit]).map { ($0["rowid"] as Int64, $0["score"] as Double) }
        }
    }

    @Test("The k best rows, in order, with their scores, are those of ranking every row", arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func sameAsFullRanking(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 150 + Int(seed) * 60, seed: seed)
        var rng = SplitMix(seed: seed &* 7919)
        for _ in 0..<25 {
            let query = Self.query(&rng)
            for limit in [1, 3, 10, 20, 50] {
                let full = try Self.ranked(index, query, limit: limit, bounded: false)
                let bounded = try Self.ranked(index, query, limit: limit, bounded: true)
                #expect(bounded.map(\.0) == full.map(\.0), "\(query), k = \(limit)")
                #expect(zip(bounded, full).allSatisfy { abs($0.1 - $1.1) <= 1e-12 * max(1, abs($1.1)) }, "\(query), k = \(limit): scores")
            }
        }
    }

    /// `docent_top`'s rows for a query of one phrase: (rowid, score), best first; `among` keeps
    /// only those rows. Nil when it declines (more than one phrase).
    static func top(_ index: FileIndex, _ query: String, limit: Int, among: [Int64]? = nil, except: [Int64] = []) throws -> [(Int64, Double)]? {
        try index.read { db in try FileIndex.top(db, match: query, among: among, except: except, keep: limit)?.map { ($0.id, $0.score) } }
    }

    @Test("docent_top keeps the rows, order and scores of the ranked statement for a query of one phrase, among a set of rows too",
          arguments: [41, 42, 43, 44, 45])
    func topInOneCall(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 300 + Int(seed % 5) * 100, seed: seed)
        // Copies of one body: rows of equal score, which the statement orders newest row first.
        try index.upsert((0..<30).map { file("/r/copy-\($0).txt", "ark bay ark cove", inode: Int64(10_000 + $0), modified: 1) })
        // And rows whose every field ends in the word: their bound is their score, so a row tied
        // with the k-th best by its bound alone must still be scored (the newer row goes first).
        try index.upsert(["ark", "Ark", "aRk", "arK", "ARk", "ArK", "aRK", "ARK"].enumerated().map {
            file("/ark/\($1)", "bay ark", inode: Int64(20_000 + $0), modified: 1)
        })
        let rows = try index.read { db in try Int64.fetchAll(db, sql: "SELECT rowid FROM files_fts ORDER BY rowid") }
        var rng = SplitMix(seed: seed &* 613)
        var ties = 0
        for _ in 0..<30 {
            let (a, b) = (Self.word(&rng), Self.word(&rng))
            let query = [a, "\"\(a) \(b)\"", String(a.prefix(2)) + "*", "title: \(a)", "{name body} : \(a)", "ark"][Int(rng.next() % 6)]
            let among = rng.next() % 2 == 0 ? rows.filter { _ in rng.next() % 3 == 0 } : nil
            // Rows left out (a word typed with a minus): the matches of another word, or none.
            let except = rng.next() % 2 == 0 ? try index.read { db in
                try Int64.fetchAll(db, sql: "SELECT rowid FROM files_fts WHERE files_fts MATCH ? ORDER BY rowid", arguments: [Self.word(&rng)])
            } : []
            var full = try Self.ranked(index, query, limit: 100_000, bounded: false)
            if let among { full = full.filter { among.contains($0.0) } }
            full = full.filter { !except.contains($0.0) }
            for limit in [1, 5, 20, 60] {
                let expected = Array(full.prefix(limit))
                let got = try #require(try Self.top(index, query, limit: limit, among: among, except: except), "\(query)")
                #expect(got.map(\.0) == expected.map(\.0), "\(query), k = \(limit), among \(among?.count ?? -1), except \(except.count)")
                #expect(zip(got, expected).allSatisfy { abs($0.1 - $1.1) <= 1e-12 * max(1, abs($1.1)) }, "\(query), k = \(limit): scores")
                ties += zip(expected, expected.dropFirst()).filter { $0.1 == $1.1 }.count
            }
        }
        #expect(ties > 20, "the queries met rows of equal score \(ties) times")
        for limit in 1...8 {
            let full = try Self.ranked(index, "ark", limit: limit, bounded: false)
            #expect(try Self.top(index, "ark", limit: limit)?.map(\.0) == full.map(\.0), "ark, k = \(limit)")
        }
        // More than one phrase: it declines, and the search runs its statement.
        #expect(try Self.top(index, "ark bay", limit: 5) == nil)
        #expect(try Self.top(index, "ark OR bay", limit: 5) == nil)
        #expect(try Self.top(index, "qqqnone", limit: 5)?.isEmpty == true)
        // An empty set is a filter no row passes, not the absence of one (an empty blob's pointer is NULL).
        #expect(try Self.top(index, "ark", limit: 5, among: [])?.isEmpty == true)
        var none = SearchRequest(match: try SearchQuery.parse("ark").match, limit: 5)
        none.extensions = ["zzzq"]
        #expect(try index.search(none).isEmpty && index.count(none) == 0)
    }

    @Test("A word typed with a minus: the hits, in order, of the statement that ranks every match of `A NOT B`", arguments: [61, 62])
    func exclusion(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 500, seed: seed)
        for query in ["ark -bay", "bay -ark", "cove -dune", "gl* -ark", "\"ark bay\" -cove", "ark -qqqnone", "ark -(bay OR cove)", "title:ark -bay"] {
            let match = try #require(try SearchQuery.parse(query).match)
            var request = SearchRequest(match: match, limit: 60)
            (request.refined, request.snippets) = (false, false)
            // What the statement ranks: every match of `A NOT B` and its score.
            let statement = try index.read { db in
                try Row.fetchAll(db, sql: "SELECT rowid, -docent_rank(files_fts, \(FileIndex.weights)) AS score FROM files_fts WHERE files_fts MATCH ?",
                                 arguments: [match.matchString]).map { ($0["rowid"] as Int64, $0["score"] as Double) }
            }
            let scoreOf = Dictionary(uniqueKeysWithValues: statement)
            let best = statement.map(\.1).sorted(by: >).prefix(60)
            let got = try index.search(request).map(\.id)
            // The same scores at each place (rows of equal score may stand in for each other at the last ones), best first.
            let gotScores = got.map { scoreOf[$0] ?? -1 }
            #expect(gotScores == Array(best), "\(query): \(got.count) hits against \(best.count)")
            #expect(try index.count(request) == index.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM files_fts WHERE files_fts MATCH ?", arguments: [match.matchString]) ?? 0
            })
        }
    }

    @Test("The rows docent_top keeps carry their docent_score for the second stage", arguments: [51, 52])
    func topKeepsScores(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 400, seed: seed)
        for query in ["ark", "\"bay cove\"", "gl*"] {
            let pairs = try index.read { db in
                let ids = try #require(try FileIndex.top(db, match: query, among: nil, keep: 10)).map(\.id)
                return try ids.map { id in
                    let kept = try Double.fetchOne(db, sql: "SELECT -docent_rescored(?)", arguments: [id])
                    let asked = try Double.fetchOne(db, sql: "SELECT -docent_score(files_fts, \(FileIndex.weights)) FROM files_fts WHERE files_fts MATCH ? AND rowid = ?",
                                                    arguments: [query, id])
                    return (kept, asked)
                }
            }
            #expect(pairs.count == 10)
            for (kept, asked) in pairs { #expect(kept != nil && kept == asked, "\(query): \(String(describing: kept)) against \(String(describing: asked))") }
        }
    }

    @Test("The rows kept carry their proximity, as docent_proximity gives it for the same match", arguments: [31, 32, 33])
    func keptProximity(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 300, seed: seed)
        var rng = SplitMix(seed: seed &* 101)
        var compared = 0
        for _ in 0..<20 {
            let (a, b, c) = (Self.word(&rng), Self.word(&rng), Self.word(&rng))
            let query = ["\(a) \(b)", "\(a) \(b) \(c)", "\"\(a) \(b)\" \(c)", "\(a) OR \(b)", "\(String(a.prefix(2)))* \(b)"][Int(rng.next() % 5)]
            // One connection: what docent_rank keeps is the connection's.
            let pairs = try index.read { db in
                let kept = try Int64.fetchAll(db, sql: """
                    SELECT rowid FROM files_fts WHERE files_fts MATCH ?
                    ORDER BY docent_rank(files_fts, \(FileIndex.weights), 10), rowid DESC LIMIT 10
                    """, arguments: [query])
                return try kept.map { id in
                    let given = try Double.fetchOne(db, sql: "SELECT docent_kept_proximity(?)", arguments: [id])
                    let asked = try Double.fetchOne(db, sql: "SELECT docent_proximity(files_fts) FROM files_fts WHERE files_fts MATCH ? AND rowid = ?",
                                                    arguments: [query, id])
                    return (given, asked)
                }
            }
            for (given, asked) in pairs {
                #expect(given != nil && given == asked, "\(query): kept \(String(describing: given)), asked \(String(describing: asked))")
                compared += 1
            }
        }
        #expect(compared > 100)
        // A row the last ranking did not keep has none.
        #expect(try index.read { db in try Double.fetchOne(db, sql: "SELECT docent_kept_proximity(-5)") } == nil)
    }

    @Test("Rows skipped are given a score below the k-th best, and a common word skips most rows")
    func skippedRowsStayBelow() throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 2_000, seed: 99)
        let k = 20
        // Every row's value, as the bounded function returns it in one pass, beside its exact score.
        let scored = try index.read { db in
            try Row.fetchAll(db, sql: """
                SELECT rowid, -docent_rank(files_fts, \(FileIndex.weights), \(k)) AS given, -bm25(files_fts, \(FileIndex.weights)) AS bm25
                FROM files_fts WHERE files_fts MATCH 'ark'
                """).map { (given: $0["given"] as Double, bm25: $0["bm25"] as Double) }
        }
        // One word: docent_rank leaves out its IDF, bm25()'s factor on every row.
        let rowCount = Double(try index.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM files_fts")! })
        let idf = max(log((rowCount - Double(scored.count) + 0.5) / (Double(scored.count) + 0.5)), 1e-6)
        let rows = scored.map { (given: $0.given, exact: $0.bm25 / idf) }
        let kth = rows.map(\.exact).sorted(by: >)[k - 1]
        let skipped = rows.filter { abs($0.given - $0.exact) > 1e-12 * max(1, abs($0.exact)) }
        #expect(rows.count > 1_000)
        // A skipped row's value is its bound: at least its score, and below the k-th best.
        #expect(skipped.allSatisfy { $0.given >= $0.exact - 1e-12 && $0.given < kth })
        #expect(skipped.count * 2 > rows.count, "\(skipped.count) of \(rows.count) rows skipped")
    }

    @Test("A type filter over few files (tested in memory) keeps the order of ranking every match and filtering after", arguments: [11, 12, 13])
    func typeFilterInMemory(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 400, seed: seed)
        var rng = SplitMix(seed: seed &* 31)
        for _ in 0..<20 {
            let match = try SearchQuery.parse(Self.query(&rng)).match
            let types: Set<String> = rng.next() % 2 == 0 ? ["com.adobe.pdf"] : ["com.adobe.pdf", "public.python-script"]
            var all = SearchRequest(match: match, limit: 10_000)
            var filtered = SearchRequest(match: match, contentTypes: types, limit: 7)
            (all.refined, filtered.refined, all.snippets, filtered.snippets) = (false, false, false, false)
            let expected = try index.search(all).filter { types.contains($0.contentType) }
            // The same scores in the same order; rows of equal score may trade places at the
            // page's edge (the ranked path keeps the newer row there), never others.
            func same(_ got: [SearchHit], _ wanted: ArraySlice<SearchHit>) -> Bool {
                got.count == wanted.count && zip(got, wanted).allSatisfy { abs($0.score - $1.score) < 1e-9 }
                    && got.allSatisfy { hit in expected.contains { $0.id == hit.id && abs($0.score - hit.score) < 1e-9 } }
            }
            let got = try index.search(filtered)
            #expect(same(got, expected.prefix(7)), "\(String(describing: match)): \(got.map(\.id)) against \(expected.prefix(7).map(\.id))")
            #expect(try index.count(filtered) == expected.count)
            filtered.offset = 3
            let next = try index.search(filtered)
            #expect(same(next, expected.dropFirst(3).prefix(7)), "\(String(describing: match)), from 3: \(next.map(\.id))")
        }
    }

    @Test("An ext: filter over few files (from the index on the last extension) keeps the order of filtering after", arguments: [21, 22])
    func extensionFilterInMemory(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, count: 400, seed: seed)
        let plan = try index.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT id FROM files WHERE \(FileIndex.extensionExpression) IN ('md')").map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("INDEX files_extension") }, "\(plan)")
        var rng = SplitMix(seed: seed &* 17)
        for _ in 0..<20 {
            let match = try SearchQuery.parse(Self.query(&rng)).match
            let extensions = [["md"], ["py", "md"], ["tar.gz"], ["gz"]][Int(rng.next() % 4)]
            var all = SearchRequest(match: match, limit: 10_000)
            var filtered = SearchRequest(match: match, limit: 7)
            filtered.extensions = extensions
            if rng.next() % 3 == 0 { filtered.contentTypes = ["com.adobe.pdf", "public.plain-text"] }
            (all.refined, filtered.refined, all.snippets, filtered.snippets) = (false, false, false, false)
            let expected = try index.search(all).filter { hit in
                extensions.contains { hit.displayPath.lowercased().hasSuffix("." + $0) }
                    && (filtered.contentTypes?.contains(hit.contentType) ?? true)
            }
            let got = try index.search(filtered)
            #expect(got.count == min(7, expected.count) && zip(got, expected).allSatisfy { abs($0.score - $1.score) < 1e-9 }
                    && got.allSatisfy { hit in expected.contains { $0.id == hit.id } }, "\(extensions): \(got.map(\.id)) against \(expected.prefix(7).map(\.id))")
            #expect(try index.count(filtered) == expected.count, "\(extensions)")
        }
    }
}
