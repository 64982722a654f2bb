import Foundation
import GRDB

/// The SQLite index as an `IndexStore`: one machine's rows, in one file.
extension FileIndex: IndexStore {
    public var displayName: String { path }
    public var host: String { LocalHost.name }

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
