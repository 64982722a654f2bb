import Foundation
import GRDB

extension FileIndex {
    /// Inserts or replaces `files` in one transaction.
    public func upsert(_ files: [IndexedFile]) throws(IndexError) {
        try write { db in
            let now = Date().timeIntervalSince1970
            for file in files {
                let id = try Int64.fetchOne(db, sql: """
                    INSERT INTO files (path, parent, name, device, inode, size, modified, changed, contentType,
                                       documentType, title, metadata, evidence, errorKind, errorMessage, indexedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET
                        parent = excluded.parent, name = excluded.name, device = excluded.device,
                        inode = excluded.inode, size = excluded.size, modified = excluded.modified,
                        changed = excluded.changed, contentType = excluded.contentType,
                        documentType = excluded.documentType, title = excluded.title, metadata = excluded.metadata,
                        evidence = excluded.evidence, errorKind = excluded.errorKind,
                        errorMessage = excluded.errorMessage, indexedAt = excluded.indexedAt
                    RETURNING id
                    """, arguments: [
                        Data(file.path), Data(file.parent), file.name, file.device, file.inode, file.size, file.modified,
                        file.changed, file.contentType, file.documentType, file.title, file.metadata, file.evidence,
                        file.errorKind, file.errorMessage, now,
                    ])!
                try db.execute(sql: "DELETE FROM files_fts WHERE rowid = ?", arguments: [id])
                try db.execute(
                    sql: "INSERT INTO files_fts (rowid, name, title, body, meta, parts) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [id, file.name, file.title ?? "", file.text, file.metadata ?? "",
                                IdentifierParts.split(file.name + "\n" + file.text)])
            }
        }
    }

    /// Removes the rows of `paths`; returns how many there were.
    @discardableResult
    public func remove(_ paths: [[UInt8]]) throws(IndexError) -> Int {
        try write { db in
            var removed = 0
            for path in paths {
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM files WHERE path = ?", arguments: [Data(path)])
                else { continue }
                try db.execute(sql: "DELETE FROM files_fts WHERE rowid = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM files WHERE id = ?", arguments: [id])
                removed += 1
            }
            return removed
        }
    }

    /// Moves a row from one path to another without touching its text (a rename within
    /// the roots keeps the file's row).
    public func move(from old: [UInt8], to new: [UInt8]) throws(IndexError) {
        let moved = IndexedFile(path: new, device: 0, inode: 0, size: 0, modified: 0, changed: 0, contentType: "")
        try write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM files WHERE path = ?", arguments: [Data(old)]) else { return }
            try db.execute(sql: "DELETE FROM files WHERE path = ?", arguments: [Data(new)])
            try db.execute(sql: "UPDATE files SET path = ?, parent = ?, name = ? WHERE id = ?",
                           arguments: [Data(new), Data(moved.parent), moved.name, id])
            try db.execute(sql: "UPDATE files_fts SET name = ? WHERE rowid = ?", arguments: [moved.name, id])
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw IndexError.database(message: "\(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw IndexError.database(message: "\(error)")
        }
    }
}

/// The pieces of camelCase and PascalCase identifiers (`parseHTTPResponse` → `parse HTTP
/// Response`), indexed beside the text so a part finds the whole. unicode61 already splits
/// `snake_case` and `dotted.names` at their punctuation.
enum IdentifierParts {
    static func split(_ text: String) -> String {
        var parts: [Substring] = []
        for word in text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) where word.count > 3 {
            let pieces = pieces(of: word)
            if pieces.count > 1 { parts.append(contentsOf: pieces) }
        }
        return parts.joined(separator: " ")
    }

    /// `word` cut before each capital that starts a new piece.
    static func pieces(of word: Substring) -> [Substring] {
        var out: [Substring] = []
        var start = word.startIndex
        var i = word.index(after: start)
        while i < word.endIndex {
            let previous = word[word.index(before: i)]
            let current = word[i]
            let next = word.index(after: i) < word.endIndex ? word[word.index(after: i)] : nil
            // lower→Upper ("parseHTTP"), or the last capital of a run before a lowercase ("HTTPResponse").
            if current.isUppercase && (previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true)) {
                out.append(word[start..<i])
                start = i
            }
            i = word.index(after: i)
        }
        out.append(word[start...])
        return out
    }
}
