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
