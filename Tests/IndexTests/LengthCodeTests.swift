import CSnippet
import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

/// Length codes (`RankedLists.lengthsSchema`, lengths.c): a byte a row, a length the row is at
/// least as long as, which lets ranking prune rows without looking their lengths up. They must
/// never change what a search keeps — rows, order, scores — as made or after rows changed
/// since, and they must prune where a row's occurrences alone cannot.
@Suite("Length codes of the rows")
struct LengthCodeTests {
    /// The codes' least lengths, as lengths.c documents them: b[1] = 1, b[c] = b[c-1] + max(1, 7% of it).
    static let base: [Int64] = {
        var table: [Int64] = [0, 1]
        for _ in 2..<256 { table.append(table.last! + max(1, table.last! * 7 / 100)) }
        return table
    }()

    /// Every row's (code's least length, length in tokens), from the table and from FTS5.
    static func coded(_ index: FileIndex) throws -> [(least: Int64, length: Int64)] {
        try index.read { db in
            var codes: [Int64: Data] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT block, codes FROM ranked_lengths") { codes[row[0]] = row[1] }
            return try Int64.fetchAll(db, sql: "SELECT rowid FROM files_fts ORDER BY rowid").map { rowid in
                    let block = codes[rowid / Int64(DOCENT_LENGTH_BLOCK)]
                    let at = Int(rowid % Int64(DOCENT_LENGTH_BLOCK))
                    let code = block.map { at < $0.count ? Int($0[$0.startIndex + at]) : 0 } ?? 0
                    return (base[code], try length(db, rowid))
                }
        }
    }

    /// A row's length in tokens, as FTS5 keeps it (the varints of its docsize row, summed).
    static func length(_ db: Database, _ rowid: Int64) throws -> Int64 {
        let sz = try #require(try Data.fetchOne(db, sql: "SELECT sz FROM files_fts_docsize WHERE id = ?", arguments: [rowid]))
        var total: Int64 = 0, value: Int64 = 0
        for byte in sz {
            value = value << 7 | Int64(byte & 0x7f)
            if byte & 0x80 == 0 { total += value; value = 0 }
        }
        return total
    }

    /// The queries' kept rows by the pruned functions (`docent_rank` with k, `docent_top`) the
    /// same as by ranking every row with each length looked up.
    static func expectSame(_ index: FileIndex, seed: UInt64, _ stage: String) throws {
        var rng = SplitMix(seed: seed &* 104_729)
        for _ in 0..<30 {
            let query = rng.next() % 3 == 0 ? "\"ark bay\"" : TopRankTests.query(&rng)
            for limit in [1, 5, 20] {
                let full = try TopRankTests.ranked(index, query, limit: limit, bounded: false)
                let bounded = try TopRankTests.ranked(index, query, limit: limit, bounded: true)
                #expect(bounded.map(\.0) == full.map(\.0), "\(stage): \(query), k = \(limit)")
                #expect(zip(bounded, full).allSatisfy { abs($0.1 - $1.1) <= 1e-12 * max(1, abs($1.1)) }, "\(stage): \(query), k = \(limit): scores")
                if let top = try TopRankTests.top(index, query, limit: limit) {
                    #expect(top.map(\.0) == full.map(\.0), "\(stage): docent_top \(query), k = \(limit)")
                }
            }
        }
    }

    /// An index whose rows hold "ark bay" near their start, bodies from 2 to ~3,000 words: the
    /// phrase's reach says nothing of how long they are.
    static func index(_ dir: TemporaryDirectory, seed: UInt64) throws -> FileIndex {
        let index = try TopRankTests.index(dir, count: 400, seed: seed)
        var rng = SplitMix(seed: seed &* 17)
        try index.upsert((0..<300).map { i in
            let length = Int(rng.next() % (rng.next() % 3 == 0 ? 3_000 : 60))
            let body = "ark bay " + (0..<length).map { _ in TopRankTests.word(&rng) }.joined(separator: " ")
            return file("/r/early-\(i).txt", body, inode: Int64(50_000 + i), modified: Int64(i))
        })
        return index
    }

    @Test("A code is a length the row is at least as long as, within 7% (exact below 15 tokens)")
    func codesBoundFromBelow() throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, seed: 71)
        try index.makeRankedListsIfDue(minimumRows: 1)
        let rows = try Self.coded(index)
        #expect(rows.count == 700 && rows.allSatisfy { $0.least > 0 }, "every row has a code")
        for row in rows {
            #expect(row.least <= row.length && (row.length < 15 ? row.least == row.length : row.length * 100 < row.least * 108), "\(row)")
        }
    }

    @Test("Pruning by codes keeps what ranking every row keeps, as made and after rows changed since", arguments: [72, 73, 74])
    func sameAsEveryLength(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try Self.index(dir, seed: seed)
        try index.makeRankedListsIfDue(minimumRows: 1)
        try Self.expectSame(index, seed: seed, "as made")
        // Rows rewritten far shorter and far longer than their codes say, new rows past the
        // last block, removed rows: the log names them, and they are looked up.
        var rng = SplitMix(seed: seed &* 3)
        let paths = try index.read { db in try Data.fetchAll(db, sql: "SELECT path FROM files ORDER BY id").map { String(decoding: $0, as: UTF8.self) } }
        try index.upsert((0..<60).map { i in
            let length = i % 2 == 0 ? 1 : 2_500
            let body = "ark bay ark " + (0..<length).map { _ in TopRankTests.word(&rng) }.joined(separator: " ")
            return file(paths[Int(rng.next() % UInt64(paths.count))], body, inode: Int64(60_000 + i), modified: 99)
        })
        try index.upsert((0..<30).map { file("/r/later-\($0).txt", "ark bay ark bay", inode: Int64(70_000 + $0)) })
        try index.remove(paths[100..<130].map { Array($0.utf8) })
        try Self.expectSame(index, seed: seed, "after changes")
        // Beyond what a search reads of the log: no codes used, the same rows.
        try index.upsert((0..<(Int(DOCENT_LENGTH_CHANGES) + 10)).map { file("/r/more-\($0).txt", "bay cove", inode: Int64(80_000 + $0)) })
        try Self.expectSame(index, seed: seed, "too many changes")
    }

    @Test("Codes prune rows whose occurrences say nothing of their length")
    func codesPrune() throws {
        let dir = try TemporaryDirectory()
        // Rows of 30 to ~3,000 words starting with the phrase: a pruned row's bound is above its
        // score (a code is exact only below 15 tokens), so the rows skipped can be counted.
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        var rng = SplitMix(seed: 75)
        try index.upsert((0..<600).map { i in
            let body = "zulu yarrow " + (0..<(30 + Int(rng.next() % 3_000))).map { _ in TopRankTests.word(&rng) }.joined(separator: " ")
            return file("/r/\(i).txt", body, inode: Int64(i + 1))
        })
        // Rows skipped by a pruned ranking of the phrase: given their bound, not their score.
        func skipped() throws -> Int {
            try index.read { db in
                func scores(_ k: String) throws -> [Int64: Double] {
                    Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                        SELECT rowid, -docent_rank(files_fts, \(FileIndex.weights)\(k)) FROM files_fts WHERE files_fts MATCH '"zulu yarrow"'
                        """).map { ($0[0] as Int64, $0[1] as Double) })
                }
                let given = try scores(", 5"), exact = try scores("")
                #expect(given.count == 600 && given.keys == exact.keys)
                return given.filter { abs($0.value - exact[$0.key]!) > 1e-9 }.count
            }
        }
        try index.makeRankedListsIfDue(minimumRows: 1)
        let withCodes = try skipped()
        try index.write { db in try db.execute(sql: "DELETE FROM ranked_lengths") }
        let without = try skipped()
        #expect(withCodes > without + 100, "skipped \(withCodes) with codes, \(without) without")
    }
}
