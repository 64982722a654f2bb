import DocumentModel
import Documents
import Engine
import Foundation
import GRDB
@testable import Index
import SystemPackage
import Testing
import TestSupport

/// A cold index commits without waiting for the disk (`synchronous = OFF`) and must leave the
/// index durable again however the run ends.
@Suite("Filling an empty index")
struct FillingEmptyIndexTests {
    /// The writer connection's `PRAGMA synchronous`: 0 OFF, 1 NORMAL.
    static func synchronous(_ index: FileIndex) throws -> Int {
        try index.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// FTS5's merge settings as the index keeps them: (automerge, crisismerge, hashsize), nil where unset.
    static func merging(_ index: FileIndex) throws -> [Int?] {
        try index.pool.read { db in
            try ["automerge", "crisismerge", "hashsize"].map { try Int.fetchOne(db, sql: "SELECT v FROM files_fts_config WHERE k = ?", arguments: [$0]) }
        }
    }

    /// The indexes a fill drops and makes again at its end, as the schema holds them now.
    static func fillIndexes(_ index: FileIndex) throws -> [String] {
        try index.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE name IN ('files_identity', 'files_folded_name') ORDER BY name")
        }
    }

    @Test("The switch sets the writer to OFF and back to NORMAL, the damage flag raised meanwhile")
    func toggle() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        #expect(try Self.synchronous(index) == 1)
        #expect(try Self.merging(index) == [8, 64, 1 << 20])  // migration v12
        #expect(try Self.fillIndexes(index) == ["files_folded_name", "files_identity"])
        try index.fillingEmptyIndex(true)
        #expect(try Self.synchronous(index) == 0)
        #expect(try Self.merging(index) == [0, 1000, 16 << 20])
        #expect(try Self.fillIndexes(index).isEmpty)
        // Until the fill is durable, the next writer is told to check the whole index.
        #expect(FileManager.default.fileExists(atPath: index.damageFlagPath))
        try index.upsert([IndexedFile(path: Array("/r/a.txt".utf8), device: 1, inode: 1, size: 5, modified: 1, changed: 1,
                                      contentType: "public.plain-text", text: "kettle")])
        try index.fillingEmptyIndex(false)
        #expect(try Self.synchronous(index) == 1)
        #expect(try Self.merging(index) == [8, 64, 1 << 20])
        #expect(try Self.fillIndexes(index) == ["files_folded_name", "files_identity"])
        // Made from the rows the fill wrote: a name search and a rename's lookup use them.
        #expect(try index.rows(device: 1, inode: 1).map(\.path) == [Array("/r/a.txt".utf8)])
        #expect(!FileManager.default.fileExists(atPath: index.damageFlagPath))

        // A reader's word of damage that came during the fill is not the fill's to take back.
        try index.fillingEmptyIndex(true)
        FileIndex.flagDamage(at: index.path, "database disk image is malformed")
        try index.fillingEmptyIndex(false)
        #expect(FileManager.default.fileExists(atPath: index.damageFlagPath))
    }

    @Test("A cold run leaves the writer at NORMAL, and so does a run on a filled index")
    func indexerRestores() throws {
        let dir = try TemporaryDirectory()
        let root = dir.path + "/root"
        for i in 0..<20 { _ = try dir.write("root/\(i).txt", "kettle \(i)") }
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        let indexer = Indexer(index: index, documents: DocumentRegistry(groups: BuiltInDocuments.groups), workers: 2)
        #expect(try indexer.run(roots: [FilePath(root)]).indexed == 20)
        #expect(try Self.synchronous(index) == 1)
        _ = try dir.write("root/new.txt", "kettle new")
        #expect(try indexer.run(roots: [FilePath(root)]).indexed == 1)
        #expect(try Self.synchronous(index) == 1)
    }

    @Test("A fill writes a segment of FTS5's index per batch of text, not per 256 rows or per megabyte of postings")
    func segmentPerBatch() throws {
        let dir = try TemporaryDirectory()
        let root = dir.path + "/root"
        // 900 files of 300 words each (about 1.9 MB of text, FTS5's postings of it over 1 MB):
        // one batch, below 4 MB of text and below the 1,000 files after which the run merges.
        var rng = SystemRandomNumberGenerator()
        let words = (0..<20_000).map { "w\(String($0, radix: 36))q" }
        for i in 0..<900 {
            _ = try dir.write("root/\(i / 100)/\(i).txt", (0..<300).map { _ in words.randomElement(using: &rng)! }.joined(separator: " "))
        }
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        let indexer = Indexer(index: index, documents: DocumentRegistry(groups: BuiltInDocuments.groups), workers: 2)
        #expect(try indexer.run(roots: [FilePath(root)]).indexed == 900)
        let segments = try index.pool.read { try Int.fetchOne($0, sql: "SELECT count(DISTINCT segid) FROM files_fts_idx") }
        #expect(segments == 1)
        #expect(try Self.merging(index) == [8, 64, 1 << 20])
    }

    @Test("A fill that was killed has its deferred merging set back by the next writer's session")
    func killedFillRestoresMerging() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/index.sqlite"
        do {
            let index = try FileIndex(path: path)
            try index.fillingEmptyIndex(true)
            try index.upsert([IndexedFile(path: Array("/r/a.txt".utf8), device: 1, inode: 1, size: 5, modified: 1, changed: 1,
                                          contentType: "public.plain-text", text: "kettle")])
            #expect(try Self.merging(index) == [0, 1000, 16 << 20])
            try index.close()  // as a kill leaves it: merging deferred, the damage flag up
        }
        let session = try IndexSession(path: path, privateDirectory: false, report: { _ in })
        let index = try #require(session.index as? FileIndex)
        #expect(try Self.merging(index) == [8, 64, 1 << 20])
        #expect(try Self.fillIndexes(index) == ["files_folded_name", "files_identity"])
        #expect(try index.search(SearchRequest(match: .term("kettle"), limit: 5)).count == 1)
        session.finish()
    }
}
