import FileAccess
import Foundation
import GRDB

/// The SQLite index as an `IndexStore`: one machine's rows, in one file.
extension FileIndex: IndexStore {
    public var displayName: String { path }
    public var host: String { LocalHost.name }

    /// The inverted index merged into one segment, when it is in more than four (13 after a
    /// cold index of the benchmark corpus).
    @discardableResult
    public func upkeepAfterLargeRun() throws(IndexError) -> Bool {
        guard try fullTextSegments() > 4 else { return false }
        try optimizeFullText()
        return true
    }

    /// While an empty index is filled, commits and checkpoints do not wait for the disk
    /// (`synchronous = OFF` on the writer): a cold index of the benchmark corpus made 424
    /// `fdatasync` calls that held the write lock 7.6 s in all. When the run ends, the
    /// writer is back to `NORMAL` and the file system is synced (`syncfs`).
    ///
    /// Killing Docent loses nothing either way (the writes are in the kernel's cache); a crash
    /// of the machine meanwhile can leave pages of a checkpoint unwritten, which
    /// `quick_check` may not see. So the fill raises the damage flag until it is durable:
    /// the next writer to open an index whose fill did not end runs the thorough check.
    public func fillingEmptyIndex(_ filling: Bool) throws(IndexError) {
        if filling { Self.flagDamage(at: path, Self.unfinishedFill) }
        try writeOutsideTransaction { db in
            try db.execute(sql: filling ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL")
            try Self.setSegmentMerging(filling ? .deferred : .automatic, db)
            guard !filling else { return }
            // The log and what the fill's checkpoints wrote to the database unsynced: on the
            // disk now, through the directory (`FileSystemSync`). No checkpoint of its own:
            // the log goes on as a run at NORMAL leaves it.
            let directory = (path as NSString).deletingLastPathComponent
            do { try FileSystemSync.sync(containing: directory.isEmpty ? "." : directory) } catch {
                throw IndexError.storage(path: path, message: "cannot write the index out to the disk: \(error)", code: 10)
            }
        }
        // Only the flag this fill raised: a reader's word of damage meanwhile stays.
        if !filling, WholeFile.read(damageFlagPath).map({ String(decoding: $0, as: UTF8.self) }) == Self.unfinishedFill + "\n" {
            unlink(damageFlagPath)
        }
    }

    /// How FTS5 merges the inverted index's segments as batches are written.
    enum SegmentMerging {
        /// FTS5's defaults: four segments of a level merged into one of the next (`automerge`),
        /// sixteen at once when writes outpace that (`crisismerge`).
        case automatic
        /// None while an empty index is filled: every batch's segment waits for the one
        /// `optimize` at the run's end (`upkeepAfterLargeRun`), which reads each posting once
        /// instead of at every level it would climb (a cold index of the benchmark corpus:
        /// 21.1 → 18.7–19.3 s). Up to 1,000 segments wait; FTS5 allows 2,000.
        case deferred
    }

    static func setSegmentMerging(_ merging: SegmentMerging, _ db: Database) throws {
        let (automerge, crisismerge) = merging == .automatic ? (4, 16) : (0, 1000)
        try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('automerge', ?)", arguments: [automerge])
        try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('crisismerge', ?)", arguments: [crisismerge])
    }

    /// A fill that was killed leaves FTS5's merging deferred (FTS5 keeps the setting in the
    /// index): the writer that opens it next sets it back (`IndexSession`).
    package func restoreSegmentMerging() throws(IndexError) {
        let automerge = try read { try Int.fetchOne($0, sql: "SELECT v FROM files_fts_config WHERE k = 'automerge'") }
        guard automerge == 0 else { return }
        try write { try Self.setSegmentMerging(.automatic, $0) }
    }

    /// The damage flag's text while an empty index is filled.
    static let unfinishedFill = "an empty index was being filled without waiting for the disk, and the fill did not end"

    /// One machine's index holds this host's rows alone.
    public func storedFile(host: String, path: [UInt8], textLimit: Int) throws(IndexError) -> (file: IndexedFile, text: String)? {
        guard host == self.host else { return nil }
        return try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM files WHERE path = ?", arguments: [Data(path)]) else { return nil }
            let text = try String.fetchOne(db, sql: "SELECT docent_inflate(body, ?) FROM texts WHERE id = ?", arguments: [textLimit, row["id"] as Int64])
            return (IndexedFile(row: row), text ?? "")
        }
    }

    public func storedText(id: Int64, limit: Int) throws(IndexError) -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT docent_inflate(body, ?) FROM texts WHERE id = ?", arguments: [limit, id])
        }
    }
}

extension IndexStore {
    /// The rows that carry an error, by path.
    public func filesWithErrors() throws(IndexError) -> [IndexedFile] { try filesWithErrors(limit: nil) }
}

extension FileIndex {
    /// Rows of identical content among `ids`: the same size and the same stored text (its
    /// compressed bytes compared whole: identical texts compress alike), whatever type each
    /// name gave them (`LICENSE` and `COPYING` holding the same bytes).
    public func identicalGroups(among ids: [Int64]) throws(IndexError) -> [[Int64]] {
        guard ids.count > 1 else { return [] }
        let list = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let pairs: [(Int64, Int64)] = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT fa.id AS a, fb.id AS b FROM files fa
                JOIN files fb ON fb.size = fa.size AND fb.id != fa.id
                JOIN texts ta ON ta.id = fa.id JOIN texts tb ON tb.id = fb.id AND tb.body = ta.body
                WHERE fa.id IN (\(list)) AND fb.id IN (\(list)) AND fa.errorKind IS NULL AND fb.errorKind IS NULL
                  AND length(ta.body) > 1  -- files with no text are not compared by it
                """, arguments: StatementArguments(ids + ids)).map { ($0["a"], $0["b"]) }
        }
        return IdenticalHits.groups(ids, pairs: pairs)
    }
}

/// Identical files among a page of hits: found by each store, folded here alike for the
/// viewer and `docent search`.
public enum IdenticalHits {
    /// `ids` grouped by the identical `pairs` found among them, each group led by the first of
    /// its ids in the order given; ids alone in theirs are left out.
    public static func groups(_ ids: [Int64], pairs: [(Int64, Int64)]) -> [[Int64]] {
        var group: [Int64: Int64] = [:]
        for id in ids where group[id] == nil {
            group[id] = id
            for (a, b) in pairs where a == id && group[b] == nil { group[b] = id }
        }
        let grouped = Dictionary(grouping: ids, by: { group[$0] ?? $0 })
        return ids.compactMap { id in grouped[id].flatMap { $0.count > 1 ? $0 : nil } }
    }

    /// `hits` with each identical group shown once, by its best placed hit, and the places of
    /// the others by that hit's id.
    public static func folded(_ hits: [SearchHit], in index: any IndexStore) -> (hits: [SearchHit], alsoAt: [Int64: [String]]) {
        var hits = hits
        var alsoAt: [Int64: [String]] = [:]
        for group in (try? index.identicalGroups(among: hits.map(\.id))) ?? [] {
            let others = Set(group.dropFirst())
            alsoAt[group[0]] = hits.filter { others.contains($0.id) }.map(\.displayPlace)
            hits.removeAll { others.contains($0.id) }
        }
        return (hits, alsoAt)
    }
}

