import FileAccess
import Foundation
import GRDB

/// Knowing when the index is damaged, and what rebuilding it needs.
///
/// The index is a cache of the file system: a damaged one is emptied and made again
/// from the roots, which are therefore also kept outside the database, in `index.sqlite.roots`.
/// A reader (a search, `status`) that meets damage says so and leaves a flag,
/// `index.sqlite.damaged`, for the next writer (`index`, `watch`) to act on.
extension FileIndex {
    /// Checks the database: `PRAGMA quick_check` (b-tree structure), or with `thorough`
    /// `PRAGMA integrity_check` (indexes agree with their tables too) and FTS5's own
    /// integrity-check, which reads every stored text back and compares the full-text index
    /// with it (and so finds a damaged text, a damaged term list, and a name that changed
    /// under FTS5). The thorough check costs about as much as tokenizing the whole index
    /// again: it runs after damage was suspected, not routinely.
    ///
    /// - Throws: `IndexError.damaged` with SQLite's first complaint.
    public func check(thorough: Bool) throws(IndexError) {
        try write { db in
            let pragma = thorough ? "PRAGMA integrity_check(1)" : "PRAGMA quick_check(1)"
            let verdict = try String.fetchOne(db, sql: pragma) ?? "no answer"
            guard verdict == "ok" else {
                // "*** in database main ***\nPage 801: btreeInitPage() returns error code 11": one line.
                let said = verdict.split(separator: "\n").filter { !$0.hasPrefix("***") }.joined(separator: "; ")
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: said)
            }
            if thorough {
                try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('integrity-check', 1)")
            }
        }
    }

    /// Closes the database, after copying the write-ahead log into it and emptying it (when
    /// no reader holds it: then it stays as it is). The index cannot be used afterwards.
    public func close() throws(IndexError) {
        stopBackgroundCheckpoints()
        _ = try? pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        do { try pool.close() } catch { throw IndexError(error, path: path) }
    }

    // MARK: The damage flag

    /// Where a reader leaves word that it met damage.
    public var damageFlagPath: String { Self.damageFlagPath(for: path) }

    public static func damageFlagPath(for path: String) -> String { path + ".damaged" }

    /// Leaves word beside the index at `path` that it is damaged, with why: the next
    /// `docent index` or `docent watch` (a running watcher at once) checks it and rebuilds it.
    public static func flagDamage(at path: String, _ message: String) {
        try? PrivateStorage.replace(damageFlagPath(for: path), with: Array((message + "\n").utf8))
    }

    // MARK: The roots, outside the database

    /// The roots kept beside the database, for rebuilding a damaged one.
    public var rootsFilePath: String { path + ".roots" }

    /// Writes the remembered roots to the roots file (replaced whole).
    public func saveRootsFile() throws(IndexError) {
        let paths = try roots().map(\.path)
        var text = "# The roots of the Docent index beside this file, one per line (bytes that are not\n"
            + "# printable UTF-8 as %XX). A damaged index is rebuilt from them.\n"
        for path in paths { text += Self.escape(path) + "\n" }
        do { try PrivateStorage.replace(rootsFilePath, with: Array(text.utf8), temporary: rootsFilePath + ".tmp") } catch {
            throw IndexError(DatabaseError(resultCode: .SQLITE_IOERR, message: "cannot write \(rootsFilePath): \(error)"), path: path)
        }
    }

    /// The roots in the roots file beside the index at `path` (none when there is no file).
    public static func rootsInFile(for path: String) -> [[UInt8]] {
        guard let data = WholeFile.read(path + ".roots") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
            .map { unescape(Substring($0)) }
    }

    /// `path` as one line: `%`, control characters and (in a path that is not UTF-8) every
    /// byte above 0x7F as `%XX`.
    static func escape(_ path: [UInt8]) -> String {
        let isUTF8 = String(validating: path, as: UTF8.self) != nil
        var out: [UInt8] = []
        for byte in path {
            if byte == UInt8(ascii: "%") || byte < 0x20 || byte == 0x7F || (!isUTF8 && byte >= 0x80) {
                out += Array(String(format: "%%%02X", byte).utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func unescape(_ line: Substring) -> [UInt8] {
        var out: [UInt8] = []
        let bytes = Array(line.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}

extension IndexError {
    /// SQLite's error as Docent's: damage (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, a stored text
    /// that cannot be read back) and storage that cannot take writes (`SQLITE_FULL`,
    /// `SQLITE_READONLY`, `SQLITE_IOERR`) each have their own case, with SQLite's message
    /// and never the SQL.
    init(_ error: any Error, path: String) {
        if let error = error as? IndexError {
            self = error
            return
        }
        guard let error = error as? DatabaseError else {
            self = .database(message: "\(error)")
            return
        }
        let message = error.message ?? "\(error.resultCode)"
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            // "malformed database schema (name) - …" goes on with the damaged schema's own
            // text (its SQL): the object's name says enough.
            let schema = message.hasPrefix("malformed database schema") ? message.range(of: " - ") : nil
            self = .damaged(path: path, message: schema.map { String(message[..<$0.lowerBound]) } ?? message)
        case .SQLITE_FULL, .SQLITE_READONLY, .SQLITE_IOERR, .SQLITE_CANTOPEN:
            self = .storage(path: path, message: message, code: error.extendedResultCode.rawValue)
        default:
            self = .database(message: message)
        }
    }

    /// Whether the index itself is damaged (as opposed to a query or the disk).
    public var isDamage: Bool {
        if case .damaged = self { return true }
        return false
    }

    /// Whether the disk under the index took no writes (full, read-only, failing), or its
    /// server could not be reached: worth trying again later; the failed transaction left
    /// nothing behind.
    public var isStorage: Bool {
        switch self {
        case .storage, .unreachable: true
        default: false
        }
    }
}

/// The inverted index's shape: FTS5 writes each batch as a segment and merges them a few at a
/// time, so an index built in one long run ends in a dozen or so segments, each of which every
/// term lookup probes (and, in a search process, faults its pages in).
extension FileIndex {
    /// How many segments FTS5's inverted index is in (a segment's pages have rowids with its
    /// id from bit 37 up; FTS5's own structure record and averages sit below).
    public func fullTextSegments() throws(IndexError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(DISTINCT rowid >> 37) FROM files_fts_data WHERE rowid > 10") ?? 0 }
    }

    /// One step of merging FTS5's segments while nothing else is written (`IndexStore.tidyWhileIdle`).
    ///
    /// Live batches each leave a segment, and FTS5 merges them only eight at a time inside
    /// commits (`SegmentMerging.automatic`, so that a burst's commits stay short): after 10,000
    /// changes over a million files the index was in 18 segments, every term lookup probed each
    /// of them, and "did you mean"'s ~700 lookups took 90 ms where one segment took 42. A step
    /// writes at most `pages` pages (FTS5's `merge`), merging only levels that hold four
    /// segments or more (FTS5's `usermerge`), so the one large segment a cold index left is
    /// rewritten only when three more have grown to its size. True while FTS5 has more to merge.
    public func mergeSegmentsStep(pages: Int = 256) throws(IndexError) -> Bool {
        try write { db in
            let before = db.totalChangesCount
            try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('merge', ?)", arguments: [pages])
            // FTS5's word for "nothing was left to merge": fewer than two changes.
            return db.totalChangesCount - before >= 2
        }
    }

    /// Merges the inverted index into one segment (FTS5's `optimize`).
    public func optimizeFullText() throws(IndexError) {
        try write { db in try db.execute(sql: "INSERT INTO files_fts (files_fts) VALUES ('optimize')") }
    }
}
