public import Foundation
import GRDB

extension FileIndex {
    /// Remembers `paths` as roots (already-known ones are kept as they are), in the database
    /// and in the roots file beside it.
    public func addRoots(_ paths: [[UInt8]]) throws(IndexError) {
        try write { db in
            for path in paths {
                try db.execute(sql: "INSERT OR IGNORE INTO roots (path) VALUES (?)", arguments: [Data(path)])
            }
        }
        try saveRootsFile()
    }

    /// The remembered roots and when each was last indexed.
    public func roots() throws(IndexError) -> [(path: [UInt8], lastIndexed: Date?)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT path, lastIndexed FROM roots ORDER BY path").map { row in
                let path: Data = row["path"]
                let time: Double? = row["lastIndexed"]
                return ([UInt8](path), time.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    /// Records that `root` was indexed now.
    public func markIndexed(_ root: [UInt8]) throws(IndexError) {
        try write { db in
            try db.execute(sql: "UPDATE roots SET lastIndexed = ? WHERE path = ?",
                           arguments: [Date().timeIntervalSince1970, Data(root)])
        }
    }
}
