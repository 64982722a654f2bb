import Foundation
import GRDB

/// The SQLite index as an `IndexStore`: one machine's rows, in one file.
extension FileIndex: IndexStore {
    public var displayName: String { path }
    public var host: String { LocalHost.name }

    /// The inverted index merged into one segment, when it is in more than four (13 after a
    /// cold index of the benchmark corpus).
    @discardableResult
    public func upkeepAfterLargeRun() throws(IndexError) -> Bool {
        guard try fullTextSegments() > 4 else { return false }
        try optimizeFullText()
        return true
    }

    /// While an empty index is filled, commits and checkpoints do not wait for the disk
    /// (`synchronous = OFF` on the writer): a cold index of the benchmark corpus made 424
    /// `fdatasync` calls that held the write lock 7.6 s in all. When the run ends, the
    /// writer is back to `NORMAL` and a checkpoint syncs the log and the database.
    /// Killing Docent loses nothing either way (the writes are in the kernel's cache); only
    /// a crash of the machine meanwhile can damage the index, which is then rebuilt.
    public func fillingEmptyIndex(_ filling: Bool) throws(IndexError) {
        try writeOutsideTransaction { db in
            try db.execute(sql: filling ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL")
            if !filling { try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        }
    }

    /// One machine's index holds this host's rows alone.
    public func storedFile(host: String, path: [UInt8], textLimit: Int) throws(IndexError) -> (file: IndexedFile, text: String)? {
        guard host == self.host else { return nil }
        return try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM files WHERE path = ?", arguments: [Data(path)]) else { return nil }
            let text = try String.fetchOne(db, sql: "SELECT docent_inflate(body, ?) FROM texts WHERE id = ?", arguments: [textLimit, row["id"] as Int64])
            return (IndexedFile(row: row), text ?? "")
        }
    }

    public func storedText(id: Int64, limit: Int) throws(IndexError) -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT docent_inflate(body, ?) FROM texts WHERE id = ?", arguments: [limit, id])
        }
    }
}

extension IndexStore {
    /// The rows that carry an error, by path.
    public func filesWithErrors() throws(IndexError) -> [IndexedFile] { try filesWithErrors(limit: nil) }
}
