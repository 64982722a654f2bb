import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

/// A word's ranked list (`RankedLists`, `docent_skyline`) must give the rows, order and scores
/// of ranking every row that holds it, for any search that keeps up to its depth, also after
/// rows were inserted, rewritten, renamed and removed since it was made.
@Suite("Ranked lists of the words in many files")
struct RankedListTests {
    /// What a search keeps of a one-word query through `docent_top`: (rowid, score) best
    /// first, and Docent's BM25 of each kept row (the window's second stage), from every row
    /// or from the word's list; the list's rows are nil when the search would rank every row.
    static func best(_ index: FileIndex, _ word: String, keep: Int, listed: Bool) throws -> (rows: [(Int64, Double)], rescored: [Double?])? {
        try index.read { db in
            let list = listed ? try FileIndex.rankedCandidates(db, expression: .term(word), keep: keep) : nil
            if listed && list == nil { return nil }
            let rows = try #require(try FileIndex.top(db, match: FTSExpression.term(word).matchString, among: nil, list: list, keep: keep))
            let kept = try FileIndex.kept(db, ids: rows.map(\.id))
            return (rows.map { ($0.id, $0.score) }, rows.map { kept[$0.id]?.score })
        }
    }

    /// Each word's best rows by its list the same as by every row; a list may stand aside
    /// (its depth spent by changed rows) for searches deeper than `surely`.
    static func expectSame(_ index: FileIndex, words: [String], keeps: [Int] = [1, 5, 20, 50], surely: Int = 50, _ stage: String) throws {
        for word in words {
            for keep in keeps {
                let full = try #require(try best(index, word, keep: keep, listed: false))
                guard let listed = try best(index, word, keep: keep, listed: true) else {
                    if keep <= surely { Issue.record("\(stage): \(word), k = \(keep): no list") }
                    continue
                }
                #expect(listed.rows.map(\.0) == full.rows.map(\.0), "\(stage): \(word), k = \(keep)")
                #expect(listed.rows.map(\.1) == full.rows.map(\.1), "\(stage): \(word), k = \(keep): scores")
                #expect(listed.rescored == full.rescored, "\(stage): \(word), k = \(keep): Docent's scores")
            }
        }
    }

    @Test("A list ranks like every row, before and after rows change, and stands aside when too much changed", arguments: [3, 4, 5])
    func sameAsEveryRow(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try TopRankTests.index(dir, count: 500 + Int(seed) * 50, seed: seed)
        // Copies of one body: rows of equal figures, which the search orders newest first.
        try index.upsert((0..<30).map { file("/r/copy-\($0).txt", "ark bay ark cove", inode: Int64(10_000 + $0), modified: 1) })
        try index.makeRankedListsIfDue(minimumRows: 1)
        let words = try index.read { db in
            try TopRankTests.vocabulary.filter { try FileIndex.tokens(of: [$0], db) == [$0] }
        }
        #expect(words.count >= 15)
        let listed = try index.read { db in try String.fetchAll(db, sql: "SELECT term FROM ranked_lists") }
        #expect(Set(words).isSubset(of: Set(listed)), "every word of the sample has a list")
        try Self.expectSame(index, words: words, "as made")

        // Changes, fewer than a search looks up: rewritten rows (some of them listed), new rows,
        // renamed and removed ones.
        var rng = SplitMix(seed: seed &* 31)
        let paths = try index.read { db in try Data.fetchAll(db, sql: "SELECT path FROM files ORDER BY id").map { [UInt8]($0) } }
        var rewritten: [IndexedFile] = []
        for i in 0..<40 {
            let path = paths[Int(rng.next() % UInt64(paths.count))]
            let body = (0..<(1 + Int(rng.next() % 30))).map { _ in TopRankTests.word(&rng) }.joined(separator: " ")
            rewritten.append(file(String(decoding: path, as: UTF8.self), body + " ark ark ark", inode: Int64(20_000 + i)))
        }
        try index.upsert(rewritten)
        try index.upsert((0..<20).map { file("/r/new-\($0).txt", "ark ark bay fen fen fen", inode: Int64(30_000 + $0)) })
        try index.move(from: paths[3], to: Array("/r/ark-moved.txt".utf8))
        try index.remove(Array(paths[10..<40]))
        try Self.expectSame(index, words: words, surely: 20, "after changes")

        // More rows changed than a search looks up: every row is ranked, as before lists.
        try index.upsert((0..<(RankedLists.changesLooked + 10)).map { file("/r/more-\($0).txt", "bay cove", inode: Int64(40_000 + $0)) })
        let stale = try Self.best(index, "ark", keep: 20, listed: true)
        #expect(stale == nil, "a list too far behind is not used")
        // The idle upkeep makes them again, once it has rested after the last round.
        #expect(!(try index.rankedListsStep(minimumRows: 1)), "resting")
        let later = ContinuousClock.now + .seconds(3600)
        while try index.rankedListsStep(now: later, minimumRows: 1) {}
        try Self.expectSame(index, words: words, "made again")
        let log = try index.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ranked_changes") ?? -1 }
        #expect(log == 0, "the log is kept only as far back as the oldest list")
    }

    @Test("A list taken away row by row stands aside once it no longer holds the search's best for sure")
    func depthSpent() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        // 300 rows of "ark", each of a different count and length; the list is the best `depth`.
        try index.upsert((0..<300).map { i in
            file("/r/\(i).txt", Array(repeating: "ark", count: 1 + i % 7).joined(separator: " ") + String(repeating: " bay", count: i), inode: Int64(i + 1))
        })
        try index.makeRankedListsIfDue(minimumRows: 1)
        let list = try index.read { db in try Data.fetchOne(db, sql: "SELECT list FROM ranked_lists WHERE term = 'ark'") }
        let listedRows = try #require(list).count / 24
        #expect(listedRows >= RankedLists.depth && listedRows < 300)
        // Taking away the best rows one by one: each removal spends one of the list's depth.
        var removed = 0
        while removed + 50 < RankedLists.depth {
            let best = try #require(try Self.best(index, "ark", keep: 1, listed: false)).rows[0].0
            let path = try index.read { db in try #require(try Data.fetchOne(db, sql: "SELECT path FROM files WHERE id = ?", arguments: [best])) }
            try index.remove([[UInt8](path)])
            removed += 1
        }
        try Self.expectSame(index, words: ["ark"], keeps: [50], "depth nearly spent")
        #expect(try Self.best(index, "ark", keep: 51, listed: true) == nil, "deeper than what is left")
    }

    @Test("A first round cut short (the log on, no list yet) is made again by the next process")
    func interruptedRound() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/index-1.sqlite"
        do {
            let index = try TopRankTests.index(dir, count: 300, seed: 1)
            try index.write { db in try db.execute(sql: "INSERT INTO ranked_logging (sampledRows) VALUES (300)") }
        }
        let index = try FileIndex(path: path)
        try index.makeRankedListsIfDue(minimumRows: 1)
        #expect(try index.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ranked_lists") ?? 0 } > 0)
        try Self.expectSame(index, words: ["ark", "bay"], keeps: [10], "after the cut")
    }

    @Test("No lists below the threshold: a small index logs nothing")
    func smallIndex() throws {
        let dir = try TemporaryDirectory()
        let index = try TopRankTests.index(dir, count: 200, seed: 9)
        try index.makeRankedListsIfDue()
        #expect(!(try index.rankedListsStep()))
        let (lists, logging) = try index.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM ranked_lists") ?? -1, try Int.fetchOne(db, sql: "SELECT count(*) FROM ranked_logging") ?? -1)
        }
        #expect(lists == 0 && logging == 0)
        try index.upsert([file("/r/one-more.txt", "ark", inode: 99_999)])
        #expect(try index.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ranked_changes") } == 0)
    }
}
