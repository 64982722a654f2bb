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

    @Test("The switch sets the writer to OFF and back to NORMAL, with the log checkpointed")
    func toggle() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        #expect(try Self.synchronous(index) == 1)
        try index.fillingEmptyIndex(true)
        #expect(try Self.synchronous(index) == 0)
        try index.upsert([IndexedFile(path: Array("/r/a.txt".utf8), device: 1, inode: 1, size: 5, modified: 1, changed: 1,
                                      contentType: "public.plain-text", text: "kettle")])
        try index.fillingEmptyIndex(false)
        #expect(try Self.synchronous(index) == 1)
        // Everything the log held is in the database file now: a passive checkpoint has nothing left to copy.
        let (log, copied) = try index.pool.writeWithoutTransaction { db in
            let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")!
            return (row[1] as Int, row[2] as Int)
        }
        #expect(log == copied)
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
}
