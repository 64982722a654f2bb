import Foundation
import GRDB

extension FileIndex {
    /// A search's hit from its row (`id`, `path`, `contentType`, `title`, `score`, `modified`).
    static func hit(_ row: Row, snippet: String) -> SearchHit {
        let path: Data = row["path"]
        return SearchHit(id: row["id"], path: [UInt8](path), contentType: row["contentType"], title: row["title"], score: row["score"],
                         snippet: snippet, modified: row["modified"])
    }

    /// The row for `path`, without its text.
    public func file(at path: [UInt8]) throws(IndexError) -> IndexedFile? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE path = ?", arguments: [Data(path)]).map(IndexedFile.init(row:))
        }
    }

    /// The row with `id`, without its text.
    public func file(id: Int64) throws(IndexError) -> IndexedFile? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE id = ?", arguments: [id]).map(IndexedFile.init(row:))
        }
    }

    /// Every indexed path under `directory` (the directory itself included) and its signature:
    /// what a re-index compares with `lstat`.
    public func signatures(under directory: [UInt8]) throws(IndexError) -> [[UInt8]: FileSignature] {
        let (prefix, upper) = Self.subtreeRange(directory)
        return try read { db in
            var out: [[UInt8]: FileSignature] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT path, device, inode, size, modified, changed FROM files
                WHERE (path >= ? AND path < ?) OR path = ?
                """, arguments: [Data(prefix), Data(upper), Data(directory)])
            while let row = try rows.next() {
                let path: Data = row["path"]
                out[[UInt8](path)] = Self.signature(row)
            }
            return out
        }
    }

    /// How many files the index holds.
    public func count() throws(IndexError) -> Int {
        try read { try Int.fetchOne($0, sql: "SELECT count(*) FROM files") ?? 0 }
    }
}

extension FileIndex {
    /// The byte range `[lower, upper)` holding every path under `directory`: the directory
    /// with a trailing "/", and the same with "/" replaced by "0", the next byte.
    package static func subtreeRange(_ directory: [UInt8]) -> (lower: [UInt8], upper: [UInt8]) {
        var lower = directory
        if lower.last != UInt8(ascii: "/") { lower.append(UInt8(ascii: "/")) }
        var upper = lower
        upper[upper.count - 1] = UInt8(ascii: "/") + 1
        return (lower, upper)
    }
}

extension IndexedFile {
    init(row: Row) {
        let path: Data = row["path"]
        self.init(path: [UInt8](path), device: row["device"], inode: row["inode"], size: row["size"],
                  modified: row["modified"], changed: row["changed"], contentType: row["contentType"],
                  documentType: row["documentType"], title: row["title"], metadata: row["metadata"], text: "",
                  evidence: row["evidence"], errorKind: row["errorKind"], errorMessage: row["errorMessage"])
        headings = row["headings"]
    }
}
