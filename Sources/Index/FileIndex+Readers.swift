import Foundation
import GRDB

/// Which readers made the rows: when Docent is upgraded and a reader changes (or a new one
/// reads a type that had none), the files it concerns are read again — the rows of the
/// changed document types, and of the content types those types now read — by giving
/// their rows a signature no file has, so the next reconcile reads them like changed files.
extension FileIndex {
    /// The reader fingerprints recorded, by document type name; nil before any were.
    public func readerFingerprints() throws(IndexError) -> [String: String]? {
        try read { db in
            guard let json = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'readers'") else { return nil }
            return try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        }
    }

    /// The content types of the rows, each once.
    public func contentTypes() throws(IndexError) -> [String] {
        try read { db in try String.fetchAll(db, sql: Self.distinctTypes + " SELECT type FROM types WHERE type IS NOT NULL") }
    }

    /// Marks for reading again the rows read by `documentTypes` or of `contentTypes`, and
    /// records `fingerprints` as what made the index; returns how many rows were marked.
    @discardableResult
    public func rereadRows(documentTypes: Set<String>, contentTypes: Set<String>, fingerprints: [String: String]) throws(IndexError) -> Int {
        try write { db in
            var marked = 0
            for (column, values) in [("documentType", documentTypes), ("contentType", contentTypes)] where !values.isEmpty {
                let list = values.sorted()
                // Directories keep their rows: only files are read again.
                try db.execute(sql: """
                    UPDATE files SET size = -1
                    WHERE size >= 0 AND contentType != 'public.folder' AND \(column) IN (\(databaseQuestionMarks(count: list.count)))
                    """, arguments: StatementArguments(list))
                marked += db.changesCount
            }
            let json = String(decoding: try JSONEncoder().encode(fingerprints), as: UTF8.self)
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('readers', ?)", arguments: [json])
            return marked
        }
    }
}

/// Which classification rules typed the rows: when they change (a new Docent, a changed
/// shared-mime-info database or user declarations), every file is classified again and those
/// whose type changed are read again.
extension FileIndex {
    /// The fingerprint of the rules that typed the rows; nil before one was recorded.
    public func classifierFingerprint() throws(IndexError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'classifier'") }
    }

    /// Every file row's path and content type (not directories, not rows already marked).
    public func typedFiles(after path: [UInt8]?, limit: Int) throws(IndexError) -> [(path: [UInt8], contentType: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT path, contentType FROM files WHERE path > ? AND size >= 0 AND contentType != 'public.folder' ORDER BY path LIMIT ?
                """, arguments: [Data(path ?? []), limit]).map { row in
                let path: Data = row["path"]
                return ([UInt8](path), row["contentType"])
            }
        }
    }

    /// Marks the rows of `paths` for reading again and records `fingerprint` as the rules that
    /// typed the rows, in one transaction; returns how many rows were marked.
    @discardableResult
    public func rereadRows(paths: [[UInt8]], classifierFingerprint fingerprint: String) throws(IndexError) -> Int {
        try write { db in
            var marked = 0
            let update = try db.cachedStatement(sql: "UPDATE files SET size = -1 WHERE path = ? AND size >= 0")
            for path in paths {
                try update.execute(arguments: [Data(path)])
                marked += db.changesCount
            }
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('classifier', ?)", arguments: [fingerprint])
            return marked
        }
    }
}
