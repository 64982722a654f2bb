import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

/// Filter lists (`FilterLists`): the rows of an extension or a type held by many files, kept
/// with the ranked lists. A filter answered from them must give the rows the index gives, as
/// made and after files were added, rewritten, renamed to another extension and removed.
@Suite("Filter lists of the extensions and types of many files")
struct FilterListTests {
    static let filters: [(extensions: [String], types: [String]?)] = [
        (["md"], nil), (["txt", "py"], nil), ([], ["com.adobe.pdf"]), ([], ["public.plain-text", "public.python-script"]),
        (["md"], ["net.daringfireball.markdown"]), (["zzz"], nil),
    ]

    /// The rows of each filter (`rowsOfFewFiles`) with the lists and, after they are set aside,
    /// from the index alone; they must be the same.
    static func expectSame(_ index: FileIndex, _ stage: String, listed: Bool = true) throws {
        var withLists: [[Int64]?] = []
        var used = 0
        for filter in filters {
            var request = SearchRequest(match: .term("ark"), limit: 5)
            request.extensions = filter.extensions
            request.contentTypes = filter.types.map(Set.init)
            withLists.append(try index.rowsOfFewFiles(request).0)
            let kinds: [(FilterLists.Kind, [String])] = [(.extension, filter.extensions), (.type, filter.types ?? [])]
            used += try index.read { db in try kinds.filter { try FileIndex.listedRows(db, kind: $0.0, values: $0.1.sorted()) != nil }.count }
        }
        #expect(listed ? used >= 6 : used == 0, "\(stage): filters answered from the lists: \(used)")
        let saved = try index.read { db in try Row.fetchAll(db, sql: "SELECT * FROM ranked_filters") }
        try index.write { db in try db.execute(sql: "DELETE FROM ranked_filters") }
        for (filter, listed) in zip(filters, withLists) {
            var request = SearchRequest(match: .term("ark"), limit: 5)
            request.extensions = filter.extensions
            request.contentTypes = filter.types.map(Set.init)
            #expect(try index.rowsOfFewFiles(request).0 == listed, "\(stage): \(filter)")
        }
        try index.write { db in
            for row in saved {
                try db.execute(sql: "INSERT INTO ranked_filters (kind, value, asOf, ids) VALUES (?, ?, ?, ?)",
                               arguments: [row["kind"], row["value"], row["asOf"], row["ids"]])
            }
        }
    }

    @Test("A filter from the lists holds the rows the index holds, before and after files change", arguments: [81, 82])
    func sameAsTheIndex(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let index = try TopRankTests.index(dir, count: 600, seed: seed)
        try index.makeRankedListsIfDue(minimumRows: 1)
        let kinds = try index.read { db in try String.fetchSet(db, sql: "SELECT kind FROM ranked_filters") }
        #expect(kinds == ["extension", "type"])
        try Self.expectSame(index, "as made")
        // Files added, rewritten as another type, renamed to another extension, removed.
        var rng = SplitMix(seed: seed &* 5)
        let paths = try index.read { db in try Data.fetchAll(db, sql: "SELECT path FROM files ORDER BY id").map { String(decoding: $0, as: UTF8.self) } }
        try index.upsert((0..<25).map { file("/r/added-\($0).md", "ark", type: "net.daringfireball.markdown", inode: Int64(90_000 + $0)) })
        try index.upsert((0..<25).map { i in
            file(paths[Int(rng.next() % UInt64(paths.count))], "ark bay", type: "com.adobe.pdf", inode: Int64(91_000 + i))
        })
        for i in 0..<10 { try index.move(from: Array(paths[200 + i].utf8), to: Array("/r/renamed-\(i).md".utf8)) }
        try index.remove(paths[300..<330].map { Array($0.utf8) })
        try Self.expectSame(index, "after changes")
        // More rows changed than a search looks up: the index is read, with the same rows.
        try index.upsert((0..<(RankedLists.changesLooked + 5)).map { file("/r/more-\($0).txt", "bay", inode: Int64(92_000 + $0)) })
        try Self.expectSame(index, "too many changes", listed: false)
    }
}
