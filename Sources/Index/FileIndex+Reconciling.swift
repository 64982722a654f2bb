import Foundation
import GRDB

/// What a re-index compares the filesystem with, one directory at a time, so memory holds
/// one directory's rows and never the whole tree's.
extension FileIndex {
    /// The rows directly inside `directory`, and the row of `directory` itself (a directory
    /// that could not be read is recorded as a row with its error), keyed by path.
    public func signatures(in directory: [UInt8]) throws(IndexError) -> [PathKey: FileSignature] {
        try readOneStatement { db in
            var out: [PathKey: FileSignature] = [:]
            let statement = try db.cachedStatement(sql: """
                SELECT path, device, inode, size, modified, changed FROM files WHERE parent = ? OR path = ?
                """)
            let rows = try Row.fetchCursor(statement, arguments: [Data(directory), Data(directory)])
            while let row = try rows.next() {
                let path = try row.withUnsafeData(atIndex: 0) { $0.map { [UInt8]($0) } ?? [] }
                out[PathKey(path)] = FileSignature(device: row[1], inode: row[2], size: row[3], modified: row[4], changed: row[5])
            }
            return out
        }
    }

    /// The rows of the file with this device and inode (several when it has hard links).
    public func rows(device: Int64, inode: Int64) throws(IndexError) -> [(path: [UInt8], signature: FileSignature)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT path, device, inode, size, modified, changed FROM files WHERE device = ? AND inode = ?
                """, arguments: [device, inode]).map { row in
                    let path: Data = row["path"]
                    return ([UInt8](path), Self.signature(row))
                }
        }
    }

    /// Every directory under `root` (itself included) that holds a row.
    public func directories(under root: [UInt8]) throws(IndexError) -> [[UInt8]] {
        let (lower, upper) = Self.subtreeRange(root)
        return try read { db in
            try Data.fetchAll(db, sql: """
                SELECT DISTINCT parent FROM files WHERE (parent >= ? AND parent < ?) OR parent = ?
                """, arguments: [Data(lower), Data(upper), Data(root)]).map { [UInt8]($0) }
        }
    }

    /// Removes every row directly inside `directories`; returns how many there were.
    @discardableResult
    public func removeContents(of directories: [[UInt8]]) throws(IndexError) -> Int {
        try write { db in
            var removed = 0
            for directory in directories {
                removed += try Self.deleteRows(db, where: "parent = ?", arguments: [Data(directory)])
            }
            return removed
        }
    }

    static func signature(_ row: Row) -> FileSignature {
        FileSignature(device: row["device"], inode: row["inode"], size: row["size"], modified: row["modified"], changed: row["changed"])
    }
}
