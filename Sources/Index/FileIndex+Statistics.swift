public import Foundation
import GRDB

/// What `docent status` reports about the index.
public struct IndexStatistics: Sendable {
    /// The database and its WAL and shared-memory files, in bytes.
    public var bytesOnDisk: Int64 = 0
    public var files = 0
    /// Files per content type identifier.
    public var contentTypes: [String: Int] = [:]
    /// Files with an error, per kind of error.
    public var errorKinds: [String: Int] = [:]
    public var roots: [RootStatistics] = []
    /// Files per host (an index shared on PostgreSQL); empty for one machine's.
    public var hosts: [String: Int] = [:]

    public init() {}
}

/// One remembered root.
public struct RootStatistics: Sendable {
    public var path: [UInt8]
    public var lastIndexed: Date?
    public var files: Int
    public var errors: Int

    public init(path: [UInt8], lastIndexed: Date?, files: Int, errors: Int) {
        (self.path, self.lastIndexed, self.files, self.errors) = (path, lastIndexed, files, errors)
    }
}

extension FileIndex {
    /// Counts by type, by error and by root, and the size on disk; one read transaction.
    public func statistics() throws(IndexError) -> IndexStatistics {
        var statistics = IndexStatistics()
        statistics.bytesOnDisk = ["", "-wal", "-shm"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)??.int64Value
            return total + (size ?? 0)
        }
        let roots = try roots()
        try read { db in
            for row in try Row.fetchAll(db, sql: "SELECT contentType, count(*) AS n FROM files GROUP BY contentType") {
                statistics.contentTypes[row["contentType"]] = row["n"]
                statistics.files += row["n"] as Int
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT errorKind, count(*) AS n FROM files WHERE errorKind IS NOT NULL GROUP BY errorKind
                """) {
                statistics.errorKinds[row["errorKind"]] = row["n"]
            }
            for root in roots {
                let (lower, upper) = Self.subtreeRange(root.path)
                let row = try Row.fetchOne(db, sql: """
                    SELECT count(*) AS n, count(errorKind) AS errors FROM files WHERE path >= ? AND path < ?
                    """, arguments: [Data(lower), Data(upper)])
                statistics.roots.append(RootStatistics(path: root.path, lastIndexed: root.lastIndexed,
                                                       files: row?["n"] ?? 0, errors: row?["errors"] ?? 0))
            }
        }
        return statistics
    }

    /// The rows that carry an error, by path; at most `limit` when given.
    public func filesWithErrors(limit: Int? = nil) throws(IndexError) -> [IndexedFile] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM files WHERE errorKind IS NOT NULL ORDER BY path LIMIT ?",
                             arguments: [limit ?? -1]).map(IndexedFile.init(row:))
        }
    }
}
