import Foundation
import GRDB

extension FileIndex {
    /// Inserts or replaces `files` in one transaction.
    ///
    /// The statements run grouped — old texts out of FTS5, then rows, then stored texts, then
    /// FTS5 inserts — because FTS5 writes its pending terms out as a new segment whenever a
    /// statement opens a savepoint (an upsert with RETURNING did): interleaved per row, every
    /// file became a segment of its own and the merging cost more than the indexing. A row
    /// already there is updated in the columns that moved (`update`), a new one inserted.
    public func upsert(_ files: [IndexedFile]) throws(IndexError) {
        // The last row for a path wins (FTS5 must not be given one rowid twice).
        var last: [PathKey: Int] = [:]
        for (i, file) in files.enumerated() { last[PathKey(file.path)] = i }
        let files = files.enumerated().filter { last[PathKey($0.element.path)] == $0.offset }.map(\.element)
        // Compression and identifier splitting happen before the write lock is taken, mostly
        // before the batch reached this writer (`prepareForWrite`).
        let storage = files.map(Self.storage(of:))
        let parts = storage.map(\.parts)
        let stored = storage.map { (body: $0.body, parts: $0.storedParts) }
        try write { db in
            let now = Date().timeIntervalSince1970
            // A path no row has is inserted at once: the insert searches the paths' index for
            // it anyway, and a search of its own first cost every new row a second descent of
            // that index (718 MB at a million files). A path a row has already (the insert does
            // nothing) is updated, after its old text is taken out of FTS5.
            let insert = try db.cachedStatement(sql: """
                INSERT INTO files (path, parent, name, device, inode, size, modified, changed, contentType,
                                   documentType, title, metadata, evidence, errorKind, errorMessage, indexedAt, headings)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (path) DO NOTHING
                """)
            var inserted: [Int64?] = []
            inserted.reserveCapacity(files.count)
            for file in files {
                try insert.execute(arguments: [
                    Data(file.path), Data(file.parent), file.name, file.device, file.inode, file.size, file.modified,
                    file.changed, file.contentType, file.documentType, file.title, file.metadata, file.evidence,
                    file.errorKind, file.errorMessage, now, file.headings,
                ])
                inserted.append(db.changesCount == 1 ? db.lastInsertedRowID : nil)
            }
            let held = files.indices.filter { inserted[$0] == nil }
            if !held.isEmpty {
                let existing = try db.cachedStatement(sql: "SELECT id, device, inode, contentType FROM files WHERE path = ?")
                let rows = try held.map { i in
                    guard let row = try Row.fetchOne(existing, arguments: [Data(files[i].path)]) else {
                        throw IndexError.storage(path: db.description, message: "a row neither inserted nor found", code: 1)
                    }
                    return row
                }
                try Self.unindexTexts(db, ids: rows.map { $0["id"] as Int64 })
                for (i, row) in zip(held, rows) {
                    let id: Int64 = row["id"]
                    let file = files[i]
                    try Self.update(db, id: id, to: file, at: now, identity: row["device"] != file.device || row["inode"] != file.inode,
                                    type: row["contentType"] != file.contentType)
                    inserted[i] = id
                }
            }
            let ids = inserted.map { $0 ?? 0 }
            let text = try db.cachedStatement(sql: "INSERT OR REPLACE INTO texts (id, body, parts) VALUES (?, ?, ?)")
            for (id, stored) in zip(ids, stored) { try text.execute(arguments: [id, stored.body, stored.parts]) }
            let fts = try db.cachedStatement(sql: """
                INSERT INTO files_fts (rowid, name, title, body, meta, parts, folders, headings) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            // In the order of their rowids: FTS5 writes its pending terms out as a segment of
            // their own whenever a rowid comes below the one before (rewritten files in the
            // order they changed made a segment of nearly every row, and the merges of those
            // segments held a burst's batches for up to a second).
            for i in ids.indices.sorted(by: { ids[$0] < ids[$1] }) {
                let file = files[i]
                try fts.execute(arguments: [ids[i], file.name, file.title ?? "", file.text, file.metadata ?? "", parts[i],
                                            FolderWords.words(ofParent: file.parent), file.headings ?? ""])
            }
        }
    }

    /// `file` with its identifier parts and compressed texts made (see `StorageForm`).
    public func prepareForWrite(_ file: IndexedFile) -> IndexedFile {
        var file = file
        file.storageForm.made = Self.made(name: file.name, text: file.text)
        return file
    }

    /// What `upsert` stores of `file`: made ahead when it was (for the name and text it has
    /// now), else now.
    static func storage(of file: IndexedFile) -> StorageForm.Made {
        let name = file.name
        if let made = file.storageForm.made, made.name == name, made.text == file.text { return made }
        return made(name: name, text: file.text)
    }

    private static func made(name: String, text: String) -> StorageForm.Made {
        let parts = IdentifierParts.split(name, text)
        return StorageForm.Made(name: name, text: text, parts: parts, body: StoredText.deflate(text), storedParts: StoredText.deflate(parts))
    }

    /// Rewrites row `id` for `file` at the same path. Only the columns a change of the file
    /// can move are set, and the device, inode and type only when they moved: SQLite updates
    /// every index on a column it sets, and a rewritten file then cost six index updates
    /// (path, parent, name, identity, type, extension) where one (name and time) changed.
    private static func update(_ db: Database, id: Int64, to file: IndexedFile, at now: TimeInterval, identity: Bool, type: Bool) throws {
        let sql = "UPDATE files SET " + (identity ? "device = ?, inode = ?, " : "") + (type ? "contentType = ?, " : "") + """
            size = ?, modified = ?, changed = ?, documentType = ?, title = ?, metadata = ?, evidence = ?,
            errorKind = ?, errorMessage = ?, indexedAt = ?, headings = ? WHERE id = ?
            """
        var arguments: StatementArguments = identity ? [file.device, file.inode] : []
        if type { arguments += [file.contentType] }
        arguments += [file.size, file.modified, file.changed, file.documentType, file.title, file.metadata, file.evidence,
                      file.errorKind, file.errorMessage, now, file.headings, id]
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// Takes the texts of rows `ids` out of the full-text index (see `unindexText`), with
    /// plain VALUES statements (no savepoints: see `upsert`).
    static func unindexTexts(_ db: Database, ids: [Int64]) throws {
        let delete = try db.cachedStatement(sql: """
            INSERT INTO files_fts (files_fts, rowid, name, title, body, meta, parts, folders, headings) VALUES ('delete', ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try forEachText(db, ids: ids) { try delete.execute(arguments: $0) }
    }

    /// The FTS5 columns of rows `ids` as `files_text` shows them now (rowid first), in the
    /// order of their rowids, as `upsert` inserts (see there), 500 rows a read.
    private static func forEachText(_ db: Database, ids: [Int64], _ body: (StatementArguments) throws -> Void) throws {
        let ids = ids.sorted()
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, name, title, body, meta, parts, folders, headings FROM files_text WHERE id IN (\(placeholders(chunk.count))) ORDER BY id
                """, arguments: StatementArguments(chunk))
            for row in rows {
                try body([row["id"] as Int64, row["name"] as String, row["title"] as String, row["body"] as String,
                          row["meta"] as String, row["parts"] as String, row["folders"] as String, row["headings"] as String])
            }
        }
    }

    /// Takes row `id`'s text out of the full-text index. With external content FTS5 cannot
    /// find a row's old terms itself: it is given them, from `files_text`, so this must run
    /// before the row's name, title, metadata or text change, or before the row goes.
    static func unindexText(_ db: Database, id: Int64) throws {
        try unindexTexts(db, ids: [id])
    }

    /// Removes the rows `condition` selects from `files`, with their text; returns how many.
    static func deleteRows(_ db: Database, where condition: String, arguments: StatementArguments) throws -> Int {
        try db.execute(sql: """
            INSERT INTO files_fts (files_fts, rowid, name, title, body, meta, parts, folders, headings)
            SELECT 'delete', id, name, title, body, meta, parts, folders, headings FROM files_text
            WHERE id IN (SELECT id FROM files WHERE \(condition)) ORDER BY id
            """, arguments: arguments)
        try db.execute(sql: "DELETE FROM texts WHERE id IN (SELECT id FROM files WHERE \(condition))", arguments: arguments)
        try db.execute(sql: "DELETE FROM files WHERE \(condition)", arguments: arguments)
        return db.changesCount
    }

    /// Renames row `id` (path, parent, name), its text indexed again under the new name.
    static func rename(_ db: Database, id: Int64, to new: [UInt8]) throws {
        try unindexText(db, id: id)
        try db.execute(sql: "UPDATE files SET path = ?, parent = ?, name = ? WHERE id = ?",
                       arguments: [Data(new), Data(IndexedFile.parent(of: new)), IndexedFile.name(of: new), id])
        try indexTexts(db, ids: [id])
    }

    /// Puts the texts of rows `ids` into the full-text index as `files_text` shows them now,
    /// in the order of their rowids and one row a statement: an INSERT … SELECT opens a
    /// savepoint, and FTS5 wrote a segment for each (a moved tree of 1,000 files made 1,000).
    static func indexTexts(_ db: Database, ids: [Int64]) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO files_fts (rowid, name, title, body, meta, parts, folders, headings) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try forEachText(db, ids: ids) { try insert.execute(arguments: $0) }
    }

    /// Removes the rows of `paths`; returns how many there were.
    @discardableResult
    public func remove(_ paths: [[UInt8]]) throws(IndexError) -> Int {
        try write { db in
            var removed = 0
            for path in paths {
                removed += try Self.deleteRows(db, where: "path = ?", arguments: [Data(path)])
            }
            return removed
        }
    }

    /// Moves a row from one path to another without touching its text (a rename within
    /// the roots keeps the file's row).
    public func move(from old: [UInt8], to new: [UInt8]) throws(IndexError) {
        try write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM files WHERE path = ?", arguments: [Data(old)]) else { return }
            _ = try Self.deleteRows(db, where: "path = ?", arguments: [Data(new)])
            try Self.rename(db, id: id, to: new)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        if let fault = StorageFault.configured?.failure(path: path) { throw fault }
        do {
            return try pool.write(body)
        } catch {
            throw IndexError(error, path: path)
        }
    }

    /// Runs `body` on the writer outside any transaction (pragmas, checkpoints).
    func writeOutsideTransaction<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do {
            return try pool.writeWithoutTransaction(body)
        } catch {
            throw IndexError(error, path: path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw IndexError(error, path: path)
        }
    }

    /// Runs `body`, one statement that needs no snapshot beyond its own, without opening a
    /// read transaction around it (a crawl asks once per directory: thousands of times).
    func readOneStatement<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do {
            return try pool.unsafeRead(body)
        } catch {
            throw IndexError(error, path: path)
        }
    }
}

/// The pieces of camelCase and PascalCase identifiers (`parseHTTPResponse` → `parse HTTP
/// Response`), indexed beside the text so a part finds the whole. unicode61 already splits
/// `snake_case` and `dotted.names` at their punctuation.
package enum IdentifierParts {
    /// The pieces of every mixed-case ASCII word in `texts`, space-separated. Works on UTF-8
    /// bytes through a table of byte classes: it runs over every indexed text, and Character
    /// properties would cost more than the rest of indexing.
    package static func split(_ texts: String...) -> String {
        var out: [UInt8] = []
        for var text in texts { text.withUTF8 { scan($0, into: &out) } }
        return String(decoding: out, as: UTF8.self)
    }

    private static let (lower, upper, digit): (UInt8, UInt8, UInt8) = (1, 2, 3)
    /// Each byte's class: 0 for anything but an ASCII letter or digit.
    private static let classes: [UInt8] = (0...255).map { byte in
        isLower(UInt8(byte)) ? lower : isUpper(UInt8(byte)) ? upper : isDigit(UInt8(byte)) ? digit : 0
    }

    /// Finds the mixed-case words of `bytes`. A word is mixed when a capital inside it follows
    /// a lowercase letter or digit, or a capital and comes before a lowercase letter; so the
    /// scan looks only at capitals, found eight bytes at a time (most text has few), and
    /// works out the word around one that qualifies.
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard let base = bytes.baseAddress else { return }
        classes.withUnsafeBufferPointer { classes in
            let count = bytes.count
            func kind(_ i: Int) -> UInt8 { i >= 0 && i < count ? classes[Int(base[i])] : 0 }
            var i = 0
            while i < count {
                // Skip eight bytes at a time while none is a capital (a byte in 0x41...0x5A).
                while i + 8 <= count {
                    let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    if hasCapital(word) { break }
                    i += 8
                }
                guard i < count else { break }
                guard kind(i) == upper else { i += 1; continue }
                let previous = kind(i - 1)
                guard previous != 0, previous != upper || kind(i + 1) == lower else { i += 1; continue }
                // A mixed word: from the alphanumeric run's start to its end.
                var start = i - 1
                while start > 0, classes[Int(base[start - 1])] != 0 { start -= 1 }
                var end = i + 1
                while end < count, classes[Int(base[end])] != 0 { end += 1 }
                if end - start > 3 { appendPieces(UnsafeBufferPointer(rebasing: bytes[start..<end]), to: &out) }
                i = end
            }
        }
    }

    /// Whether any of the eight bytes of `word` is an ASCII capital (0x41...0x5A): the
    /// "has a byte between m and n" test of the bit-twiddling hacks, m = 0x40, n = 0x5B.
    @inline(__always)
    private static func hasCapital(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, low7 = ones &* 127, high = ones &* 128
        let x = word & low7
        return ((ones &* (127 + 0x5B)) &- x) & ~word & (x &+ ones &* (127 - 0x40)) & high != 0
    }

    /// `word` cut before each capital that starts a new piece (`parseHTTPResponse` → parse HTTP Response).
    static func pieces(of word: Substring) -> [Substring] {
        var out: [UInt8] = []
        appendPieces(ArraySlice(word.utf8), to: &out)
        return String(decoding: out, as: UTF8.self).split(separator: " ")
    }

    private static func appendPieces<C: RandomAccessCollection<UInt8>>(_ word: C, to out: inout [UInt8]) where C.Index == Int {
        if !out.isEmpty { out.append(0x20) }
        var previous: UInt8 = 0
        for i in word.indices {
            let c = word[i]
            let next = i + 1 < word.endIndex ? word[i + 1] : 0
            // lower→Upper ("parseHTTP"), or the last capital of a run before a lowercase ("HTTPResponse").
            if i > word.startIndex, isUpper(c), isLower(previous) || isDigit(previous) || (isUpper(previous) && isLower(next)) {
                out.append(0x20)
            }
            out.append(c)
            previous = c
        }
    }

    private static func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }
    private static func isLower(_ c: UInt8) -> Bool { c >= 0x61 && c <= 0x7A }
    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    private static func isAlphanumeric(_ c: UInt8) -> Bool { isUpper(c) || isLower(c) || isDigit(c) }
}
