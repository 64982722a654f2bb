import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

/// A row written again for the same path is updated in the columns that moved (not replaced
/// whole), and its checkpoints can run beside the writer.
@Suite("FileIndex: rows written again, checkpoints in the background")
struct RowUpdateTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/index.sqlite")
    }

    func paths(_ word: String) throws -> [String] {
        try index.search(SearchRequest(match: .term(word), limit: 50)).map(\.displayPath)
    }

    @Test("A rewritten file: every field it has now, the same row, old words gone; the type and inode as they moved",
          arguments: [(false, false), (true, false), (false, true), (true, true)])
    func rewritten(newInode: Bool, newType: Bool) throws {
        var first = file("/r/d/notes.txt", "apples and pears", title: "Fruit", inode: 7, modified: 10)
        first.metadata = #"{"author":"Ann"}"#
        try index.upsert([first, file("/r/d/other.txt", "apples too", inode: 8, modified: 10)])
        let id = try #require(try index.read { try Int64.fetchOne($0, sql: "SELECT id FROM files WHERE path = ?", arguments: [Data("/r/d/notes.txt".utf8)]) })

        var second = file("/r/d/notes.txt", "plums and cherries", type: newType ? "net.daringfireball.markdown" : "public.plain-text",
                          title: "Stone fruit", inode: newInode ? 9 : 7, modified: 20)
        second.device = newInode ? 2 : 1
        second.size = 99
        second.headings = "Plums"
        try index.upsert([second])

        let row = try #require(try index.file(at: Array("/r/d/notes.txt".utf8)))
        #expect(row.inode == (newInode ? 9 : 7) && row.device == (newInode ? 2 : 1))
        #expect(row.contentType == (newType ? "net.daringfireball.markdown" : "public.plain-text"))
        #expect(row.size == 99 && row.modified == 20 && row.title == "Stone fruit" && row.metadata == nil && row.headings == "Plums")
        #expect(try index.read { try Int64.fetchOne($0, sql: "SELECT id FROM files WHERE path = ?", arguments: [Data("/r/d/notes.txt".utf8)]) } == id)
        #expect(try paths("plums") == ["/r/d/notes.txt"])
        #expect(try paths("apples") == ["/r/d/other.txt"])
        #expect(try paths("fruit") == ["/r/d/notes.txt"])  // the new title
        // The indexes on the type and the identity lead to the row as it is now.
        #expect(try index.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM files WHERE contentType = ?", arguments: [row.contentType]) } == (newType ? 1 : 2))
        #expect(try index.rows(device: row.device, inode: row.inode).map(\.path) == [Array("/r/d/notes.txt".utf8)])
        try index.check(thorough: true)
    }

    @Test("Rewritten files reach FTS5 in the order of their rowids: one batch, a segment or two, not one a row")
    func segmentsOfABatch() throws {
        try index.upsert((0..<300).map { file("/r/\($0).txt", "first words \($0)", inode: Int64($0)) })
        try index.writeOutsideTransaction { try FileIndex.setSegmentMerging(.deferred, $0) }  // segments stay as written
        func segments() throws -> Int {
            // A data row's id holds its segment's id above bit 37 (FTS5_SEGMENT_ROWID).
            try index.read { try Int.fetchOne($0, sql: "SELECT count(DISTINCT id >> 37) FROM files_fts_data WHERE id >> 37 > 0") ?? 0 }
        }
        let before = try segments()
        // Changed in an order that is not the rows' (as a burst's files change).
        var order = Array(0..<300)
        var random = SplitMix(seed: 41)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(random.next() % UInt64(i + 1))) }
        try index.upsert(order.prefix(200).map { file("/r/\($0).txt", "second words \($0)", inode: Int64($0), modified: 2) })
        #expect(try segments() - before <= 2)
        func count(_ word: String) throws -> Int { try index.count(SearchRequest(match: .term(word), limit: 1)) }
        #expect(try count("second") == 200 && count("first") == 100)
        // A tree moved: its rows renamed in the order of their ids too.
        try index.moveTree(from: Array("/r".utf8), to: Array("/s".utf8))
        #expect(try segments() - before <= 4)
        #expect(try count("second") == 200 && count("first") == 100)
        try index.writeOutsideTransaction { try FileIndex.setSegmentMerging(.automatic, $0) }
        try index.check(thorough: true)
    }

    @Test("Upkeep while idle: FTS5's segments merged a step at a time, the same rows found, until nothing is left")
    func mergeWhileIdle() throws {
        try index.writeOutsideTransaction { try FileIndex.setSegmentMerging(.deferred, $0) }  // a segment a commit, none merged
        for batch in 0..<24 {
            try index.upsert((0..<20).map { file("/r/\(batch)-\($0).txt", "batch\(batch) words common \($0)", inode: Int64(batch * 100 + $0)) })
        }
        try index.remove((0..<10).map { Array("/r/3-\($0).txt".utf8) })
        try index.writeOutsideTransaction { try FileIndex.setSegmentMerging(.automatic, $0) }
        func found() throws -> [String] {
            try index.search(SearchRequest(match: .term("common"), limit: 1000)).map(\.displayPath).sorted()
        }
        let before = try index.fullTextSegments(), hits = try found()
        #expect(before >= 24 && hits.count == 470)
        var steps = 0
        while try index.tidyWhileIdle() { steps += 1; if steps > 1000 { break } }
        let after = try index.fullTextSegments()
        #expect(steps > 0 && steps < 1000 && after <= 4, "\(before) segments → \(after) in \(steps) steps")
        #expect(try found() == hits)
        #expect(try index.tidyWhileIdle() == false, "nothing left: a step does nothing")
        try index.check(thorough: true)
    }

    @Test("Checkpoints in the background: run past the threshold, the log copied, SQLite's own given back after")
    func backgroundCheckpoints() throws {
        try index.checkpointInBackground(true)
        // SQLite's automatic checkpoint is off on the writer: the hook is Docent's.
        #expect(try index.writeOutsideTransaction { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } == 0)
        // Enough text for a log past 4,000 pages, in batches as a watcher commits them.
        let words = (0..<2_000).map { "word\($0)" }.joined(separator: " ")
        for batch in 0..<40 {
            try index.upsert((0..<50).map { file("/r/\(batch)/\($0).txt", words + " batch\(batch)", inode: Int64(batch * 50 + $0), modified: 1) })
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while (index.backgroundCheckpoints ?? 0) == 0, ContinuousClock.now < deadline { usleep(5_000) }
        #expect((index.backgroundCheckpoints ?? 0) > 0)
        try index.checkpointInBackground(false)
        #expect(index.backgroundCheckpoints == nil)
        // The writer checkpoints by itself again.
        #expect(try index.writeOutsideTransaction { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } == 1000)
        #expect(try paths("batch39").count == 50)
        try index.check(thorough: true)
    }

    @Test("Identical files among thousands of hits: grouped by size and text, in the hits' order, as the pairwise rule groups them")
    func identicalAmongMany() throws {
        // 3,000 files of one size: pairs of identical texts, and texts that differ in one digit.
        var files: [IndexedFile] = []
        for i in 0..<1_500 {
            let text = String(format: "shared words number %04d", i)
            files.append(file("/r/a/\(i).txt", text, inode: Int64(2 * i + 1)))
            files.append(file("/r/b/\(i).txt", i % 2 == 0 ? text : String(format: "shared words number %04d", (i + 1) % 10_000 + 5_000),
                              inode: Int64(2 * i + 2)))
        }
        // The same text at another size (a different file) is not the same file.
        var resized = file("/r/c/0.txt", "shared words number 0000", inode: 99_999)
        resized.size = 1
        try index.upsert(files + [resized])
        let ids = try index.read { try Int64.fetchAll($0, sql: "SELECT id FROM files ORDER BY path DESC") }
        let groups = try index.identicalGroups(among: ids)
        #expect(groups.count == 750)
        let pathOf = Dictionary(uniqueKeysWithValues: try index.read { try Row.fetchAll($0, sql: "SELECT id, path FROM files") }.map {
            ($0["id"] as Int64, String(decoding: $0["path"] as Data, as: UTF8.self))
        })
        for group in groups {
            #expect(group.count == 2)
            // Led by the first in the order given (paths descending: /r/b before /r/a).
            #expect(pathOf[group[0]]!.hasPrefix("/r/b/") && pathOf[group[1]]!.hasPrefix("/r/a/"))
            #expect(pathOf[group[0]]!.dropFirst(5) == pathOf[group[1]]!.dropFirst(5))
        }
        // The same as the pairwise rule it replaced, on a smaller set.
        let few = Array(ids.prefix(200))
        let pairs = try index.read {
            try Row.fetchAll($0, sql: """
                SELECT fa.id AS a, fb.id AS b FROM files fa JOIN files fb ON fb.size = fa.size AND fb.id != fa.id
                JOIN texts ta ON ta.id = fa.id JOIN texts tb ON tb.id = fb.id AND tb.body = ta.body
                WHERE fa.id IN (\(FileIndex.placeholders(few.count))) AND fb.id IN (\(FileIndex.placeholders(few.count)))
                """, arguments: StatementArguments(few + few)).map { ($0["a"] as Int64, $0["b"] as Int64) }
        }
        #expect(try index.identicalGroups(among: few) == IdenticalHits.groups(few, pairs: pairs))
    }
}
