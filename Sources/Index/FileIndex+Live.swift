import Foundation
import GRDB

/// The row changes live watching needs: whole trees removed or renamed at once, and a
/// renamed file's new change time recorded without reading it again.
extension FileIndex {
    /// Removes the row at `path` and every row under it; returns how many there were.
    @discardableResult
    public func removeTree(_ path: [UInt8]) throws(IndexError) -> Int {
        let (lower, upper) = Self.subtreeRange(path)
        return try write { db in
            let condition = "path = ? OR (path >= ? AND path < ?)"
            let arguments: StatementArguments = [Data(path), Data(lower), Data(upper)]
            return try Self.deleteRows(db, where: condition, arguments: arguments)
        }
    }

    /// Moves the row at `from` and every row under it to the same places under `to`, text
    /// untouched; rows already at the destinations are replaced. Returns how many moved.
    @discardableResult
    public func moveTree(from: [UInt8], to: [UInt8]) throws(IndexError) -> Int {
        let (lower, upper) = Self.subtreeRange(from)
        return try write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM files WHERE path = ? OR (path >= ? AND path < ?)",
                                        arguments: [Data(from), Data(lower), Data(upper)])
            for row in rows {
                let id: Int64 = row["id"]
                let old: Data = row["path"]
                let new = to + [UInt8](old).dropFirst(from.count)
                _ = try Self.deleteRows(db, where: "path = ? AND id != ?", arguments: [Data(new), id])
                try Self.rename(db, id: id, to: new)
            }
            return rows.count
        }
    }

    /// Records a new `lstat` signature for the row at `path` (a rename moves the change time).
    public func updateSignature(_ path: [UInt8], _ signature: FileSignature) throws(IndexError) {
        try write { db in
            try db.execute(sql: "UPDATE files SET device = ?, inode = ?, size = ?, modified = ?, changed = ? WHERE path = ?",
                           arguments: [signature.device, signature.inode, signature.size, signature.modified,
                                       signature.changed, Data(path)])
        }
    }

    /// The `lstat` signature stored for `path`, if it has a row.
    public func signature(at path: [UInt8]) throws(IndexError) -> FileSignature? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT device, inode, size, modified, changed FROM files WHERE path = ?",
                             arguments: [Data(path)]).map(Self.signature)
        }
    }

    /// The stored signatures of `paths`, in one read (a burst of changes looks up hundreds).
    public func signatures(at paths: [[UInt8]]) throws(IndexError) -> [FileSignature?] {
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT device, inode, size, modified, changed FROM files WHERE path = ?")
            return try paths.map { try Row.fetchOne(statement, arguments: [Data($0)]).map(Self.signature) }
        }
    }

    /// A number that changes whenever another connection commits to the index (SQLite's
    /// `PRAGMA data_version`, per connection: meant for an index opened with `searching(path:)`,
    /// whose one connection makes it exact), a cheap test of whether to search again.
    package func dataVersion() throws(IndexError) -> Int {
        try read { try Int.fetchOne($0, sql: "PRAGMA data_version") ?? 0 }
    }
}
