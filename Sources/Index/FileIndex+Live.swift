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
            let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM files WHERE path = ? OR (path >= ? AND path < ?) ORDER BY id",
                                        arguments: [Data(from), Data(lower), Data(upper)])
            let renamed = rows.map { row -> (id: Int64, path: [UInt8]) in (row["id"], to + [UInt8](row["path"] as Data).dropFirst(from.count)) }
            let moving = Set(renamed.map(\.id))
            // Rows already where the moved ones land (stale rows) go first.
            var landing: [Int64] = []
            for start in stride(from: 0, to: renamed.count, by: 500) {
                let chunk = renamed[start..<min(start + 500, renamed.count)].map { Data($0.path) }
                landing += try Int64.fetchAll(db, sql: "SELECT id FROM files WHERE path IN (\(Self.placeholders(chunk.count)))",
                                              arguments: StatementArguments(chunk))
            }
            guard landing.allSatisfy({ !moving.contains($0) }) else {
                // A tree moved onto part of itself: one row at a time, as the paths allow.
                for (id, new) in renamed {
                    _ = try Self.deleteRows(db, where: "path = ? AND id != ?", arguments: [Data(new), id])
                    try Self.rename(db, id: id, to: new)
                }
                return rows.count
            }
            if !landing.isEmpty {
                _ = try Self.deleteRows(db, where: "id IN (\(Self.placeholders(landing.count)))", arguments: StatementArguments(landing))
            }
            // The texts out of FTS5 and back under the new names all at once, in the order of
            // their rowids: a statement per row each opened a savepoint, and FTS5 wrote a segment
            // at each (see `upsert` and `indexTexts`).
            try Self.unindexTexts(db, ids: renamed.map(\.id))
            let update = try db.cachedStatement(sql: "UPDATE files SET path = ?, parent = ?, name = ? WHERE id = ?")
            for (id, new) in renamed {
                try update.execute(arguments: [Data(new), Data(IndexedFile.parent(of: new)), IndexedFile.name(of: new), id])
            }
            try Self.indexTexts(db, ids: renamed.map(\.id))
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
        try signatures(at: [path])[0]
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
