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
        let merge = try fullTextSegments() > 4
        if merge { try optimizeFullText() }
        return merge
    }

    /// The ranked lists made again when they fell behind (`makeRankedListsIfDue`).
    public func upkeepAfterRun() throws(IndexError) { try makeRankedListsIfDue() }

    /// FTS5's segments merged, a step at a time (`mergeSegmentsStep`); then the ranked lists
    /// made again when due (`rankedListsStep`).
    public func tidyWhileIdle() throws(IndexError) -> Bool {
        if try mergeSegmentsStep() { return true }
        return try rankedListsStep()
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
            try Self.setFillIndexes(present: !filling, db)
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
        /// Eight segments of a level merged into one of the next, a few pages at each write
        /// (`automerge`), and all of a level at once only when it holds 64 (`crisismerge`).
        /// FTS5's defaults, four and sixteen, rewrote the one large segment a cold index
        /// leaves every few hundred batches of live changes, and finished that at once inside
        /// a commit: a batch of a burst held ~1 s at 100,000 files (0.76 s in a model of it,
        /// 600 batches of 256 rewritten rows over an optimized 100,000-row index; 0.09 s at
        /// eight and 64, 0.31 s at four and 64).
        case automatic
        /// None while an empty index is filled: every batch's segment waits for the one
        /// `optimize` at the run's end (`upkeepAfterLargeRun`), which reads each posting once
        /// instead of at every level it would climb (a cold index of the benchmark corpus:
        /// 21.1 → 18.7–19.3 s). Up to 1,000 segments wait; FTS5 allows 2,000. So that a
        /// commit makes one segment, not one per megabyte of postings, FTS5 holds up to 16 MB
        /// of them in memory before writing a segment (`hashsize`; a fill's batches are
        /// bounded by 4 MB of text, `RunState.fillingBatchRows`).
        case deferred
    }

    static func setSegmentMerging(_ merging: SegmentMerging, _ db: Database) throws {
        let (automerge, crisismerge, hashsize) = merging == .automatic ? (8, 64, 1 << 20) : (0, 1000, 16 << 20)
        try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('automerge', ?)", arguments: [automerge])
        try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('crisismerge', ?)", arguments: [crisismerge])
        try db.execute(sql: "INSERT INTO files_fts (files_fts, rank) VALUES ('hashsize', ?)", arguments: [hashsize])
    }

    /// A fill that was killed leaves FTS5's merging deferred (FTS5 keeps the setting in the
    /// index) and the indexes it makes at its end missing: the writer that opens it next sets
    /// both back (`IndexSession`).
    package func restoreSegmentMerging() throws(IndexError) {
        let names = Self.fillIndexes.map(\.name)
        let (automerge, indexes) = try read { db in
            (try Int.fetchOne(db, sql: "SELECT v FROM files_fts_config WHERE k = 'automerge'"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN (\(names.map { _ in "?" }.joined(separator: ", ")))",
                              arguments: StatementArguments(names)) ?? 0)
        }
        guard automerge == 0 || indexes < names.count else { return }
        try write { db in
            try Self.setSegmentMerging(.automatic, db)
            try Self.setFillIndexes(present: true, db)
        }
    }

    /// The indexes on `files` whose keys a crawl meets in no order (the lower-cased name; the
    /// device and inode, which follow the order the files were made in), so each row inserted
    /// rewrites a page of its own: at a million files ~1,200 of them a batch, each read back
    /// through the kernel, copied to the log and checkpointed, where at 100,000 files a batch
    /// dirtied most of these indexes' few hundred pages anyway. A fill of an empty index looks
    /// nothing up by them (renames are looked for only when the index had rows, and a `name:`
    /// search meanwhile reads the table), so it drops them and makes them at the end, from a sort.
    static let fillIndexes: [(name: String, key: String)] = [
        ("files_identity", "device, inode"),
        ("files_folded_name", "lower(name), modified"),
    ]

    static func setFillIndexes(present: Bool, _ db: Database) throws {
        for (name, key) in fillIndexes {
            try db.execute(sql: present ? "CREATE INDEX IF NOT EXISTS \(name) ON files(\(key))" : "DROP INDEX IF EXISTS \(name)")
        }
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
        // Sizes first, and the texts only of files whose size another shares, grouped by their
        // bytes here: a self-join compared every pair (4.6 s for 4,426 hits of one size range).
        let chunks = stride(from: 0, to: ids.count, by: 10_000).map { Array(ids[$0..<min($0 + 10_000, ids.count)]) }
        let classes: [[Int64]] = try read { db in
            var sizes: [Int64: [Int64]] = [:], size: [Int64: Int64] = [:]
            for chunk in chunks {
                let rows = try Row.fetchCursor(db, sql: "SELECT id, size FROM files WHERE id IN (\(Self.placeholders(chunk.count))) AND errorKind IS NULL",
                                               arguments: StatementArguments(chunk))
                while let row = try rows.next() {
                    sizes[row["size"], default: []].append(row["id"])
                    size[row["id"]] = row["size"]
                }
            }
            let candidates = sizes.values.filter { $0.count > 1 }.flatMap { $0 }
            struct Content: Hashable { var size: Int64, text: Data }
            var texts: [Content: [Int64]] = [:]
            for start in stride(from: 0, to: candidates.count, by: 10_000) {
                let chunk = Array(candidates[start..<min(start + 10_000, candidates.count)])
                // Files with no text are not compared by it.
                let rows = try Row.fetchCursor(db, sql: "SELECT id, body FROM texts WHERE id IN (\(Self.placeholders(chunk.count))) AND length(body) > 1",
                                               arguments: StatementArguments(chunk))
                while let row = try rows.next() {
                    let id: Int64 = row["id"]
                    texts[Content(size: size[id] ?? -1, text: row["body"]), default: []].append(id)
                }
            }
            return texts.values.filter { $0.count > 1 }
        }
        return IdenticalHits.groups(ids, classes: classes)
    }

    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }
}

/// Identical files among a page of hits: found by each store, folded here alike for the
/// viewer and `docent search`.
public enum IdenticalHits {
    /// `ids` grouped by the identical `pairs` found among them, each group led by the first of
    /// its ids in the order given; ids alone in theirs are left out.
    public static func groups(_ ids: [Int64], pairs: [(Int64, Int64)]) -> [[Int64]] {
        let partners = Dictionary(grouping: pairs, by: \.0)
        var group: [Int64: Int64] = [:]
        for id in ids where group[id] == nil {
            group[id] = id
            for (_, b) in partners[id] ?? [] where group[b] == nil { group[b] = id }
        }
        let grouped = Dictionary(grouping: ids, by: { group[$0] ?? $0 })
        return ids.compactMap { id in grouped[id].flatMap { $0.count > 1 ? $0 : nil } }
    }

    /// `ids` grouped by `classes` (sets of ids of identical content, in any order), as
    /// `groups(_:pairs:)` groups them: each group in the order of `ids`, led by its first.
    public static func groups(_ ids: [Int64], classes: [[Int64]]) -> [[Int64]] {
        var leader: [Int64: Int64] = [:]
        for members in classes { for id in members { leader[id] = members[0] } }
        let grouped = Dictionary(grouping: ids, by: { leader[$0] ?? $0 })
        var seen = Set<Int64>()
        return ids.compactMap { id in
            let key = leader[id] ?? id
            guard seen.insert(key).inserted, let group = grouped[key], group.count > 1 else { return nil }
            return group
        }
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

