import CSnippet
import Foundation
import GRDB
import Synchronization

/// Ranked lists: for each word in very many files, the few rows that can be among a search's
/// best, so that a search for it ranks a few hundred rows instead of every one of them.
///
/// A search ranks by BM25, which for a query of one word rises with the row's weighted count
/// of it and falls with the row's length, whatever the table's average length. So a row that
/// `depth` rows beat on both counts (a higher or equal count, a shorter or equal length) is
/// never among the best `depth`; the rows fewer than `depth` rows beat — the word's
/// *k-skyline* — hold the best `depth` of every search for it, in the order ranking every row
/// gives (`docent_skyline`, rank.c). At a million files `system` is in 298,003 rows and its
/// list holds 653; its search ranked every row's figures in 46 ms, its list in under one.
///
/// The lists stay exact as files change: a trigger logs each row of `files` written (inserted,
/// updated, renamed, deleted) once lists are kept. A search takes the list's rows less those
/// changed since it was made, and asks FTS5 for the changed rows that hold the word now
/// (`docent_figures`); a listed row taken away costs the list one of its depth (a row beaten
/// by `depth` listed rows is beaten by `depth - 1` of them when one goes). With more rows
/// changed than `changesLooked`, or a list no longer deep enough for the search, the search
/// ranks every row as before. The watcher's idle upkeep makes the lists again when they fall
/// behind (`rankedListsStep`), and the end of a large `docent index` run makes them at once.
enum RankedLists {
    /// A word gets a list when at least this many rows hold it: below, ranking every row costs
    /// a few milliseconds.
    static let minimumRows = 25_000
    /// The best rows a list holds for sure (`Relevance.window` is 50).
    static let depth = 100
    /// The most rows changed since a list was made that a search looks up (32 µs each at a
    /// million files); more, and the list waits to be made again.
    static let changesLooked = 256
    /// Rows read to find the words in many files.
    static let sampleRows = 2_000
    /// A round of making lists waits this many times as long as the last one took.
    static let restFactor = 10

    static let schema = """
        CREATE TABLE ranked_lists (
            term TEXT PRIMARY KEY, weights TEXT NOT NULL, depth INTEGER NOT NULL,
            asOf INTEGER NOT NULL, rows INTEGER NOT NULL, list BLOB NOT NULL
        );
        CREATE TABLE ranked_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL);
        CREATE TABLE ranked_logging (sampledRows INTEGER NOT NULL);
        CREATE TRIGGER ranked_inserted AFTER INSERT ON files WHEN EXISTS (SELECT 1 FROM ranked_logging)
            BEGIN INSERT INTO ranked_changes (id) VALUES (NEW.id); END;
        CREATE TRIGGER ranked_updated AFTER UPDATE ON files WHEN EXISTS (SELECT 1 FROM ranked_logging)
            BEGIN INSERT INTO ranked_changes (id) VALUES (NEW.id); END;
        CREATE TRIGGER ranked_deleted AFTER DELETE ON files WHEN EXISTS (SELECT 1 FROM ranked_logging)
            BEGIN INSERT INTO ranked_changes (id) VALUES (OLD.id); END;
        """

    /// Each row's length in tokens rounded down to one of 255 steps, a byte a row, in blocks of
    /// 2,048 rows (lengths.c): a search prunes rows on a bound from them instead of looking
    /// each length up. Made with each round's lists; the rows logged since are looked up.
    static let lengthsSchema = "CREATE TABLE ranked_lengths (block INTEGER PRIMARY KEY, asOf INTEGER NOT NULL, codes BLOB NOT NULL)"

    /// What a round makes beside the lists, from one snapshot: every row's length code
    /// (`docent_length_codes`) in blocks, the filter lists, and the log's position then.
    struct CodesAndFilters: Sendable {
        var blocks: [(block: Int64, codes: Data)]
        /// And the filter lists (`FilterLists`), from the same snapshot.
        var filters: [FilterLists.Made]
        var asOf: Int64
    }

    /// A list made, from the snapshot the log's position `asOf` belongs to.
    struct Made: Sendable {
        var term: String
        var rows: Int64
        var list: Data
        var asOf: Int64
    }

    /// A round of making lists: the words left, the lists made so far (stored together when
    /// the round ends: a write between steps would make the next step look every row's length
    /// up again, `docent_skyline`'s cost), and when it started.
    struct Round {
        var terms: [String]
        var made: [Made] = []
        var started: ContinuousClock.Instant
    }

    /// One index's upkeep of its lists (in memory: a process that starts again samples again).
    struct Upkeep {
        var round: Round?
        var restUntil: ContinuousClock.Instant?
        /// The index's rows when its words were last sampled, also when none was in enough.
        var sampledRows: Int?
    }

    /// The word of `expression` when it is a plain word (no prefix, phrase or field).
    static func word(of expression: FTSExpression) -> String? {
        switch expression {
        case .term(let word): FTSExpression.isOneCJKCharacter(word) ? nil : word
        case .and(let parts), .or(let parts): parts.count == 1 ? self.word(of: parts[0]) : nil
        default: nil
        }
    }
}

extension FileIndex {
    // MARK: Searching

    /// The rows written since the log's position `asOf` (ranked lists, filter lists), each once;
    /// nil past `RankedLists.changesLooked` of them.
    static func rowsChanged(_ db: Database, since asOf: Int64) throws -> [Int64]? {
        let changed = try Int64.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT id FROM ranked_changes WHERE seq > ? LIMIT ?"),
                                         arguments: [asOf, RankedLists.changesLooked + 1])
        return changed.count <= RankedLists.changesLooked ? changed : nil
    }

    /// The figures `docent_top` ranks in place of every row of a search for one word
    /// (`RankedLists`), for a search keeping `keep` rows; nil when it has to rank every row.
    static func rankedCandidates(_ db: Database, expression: FTSExpression, keep: Int) throws -> Data? {
        guard let word = RankedLists.word(of: expression), let tokens = try tokens(of: [word], db), tokens.count == 1,
              let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT asOf, depth, list FROM ranked_lists WHERE term = ? AND weights = ?"),
                                         arguments: [tokens[0], weights])
        else { return nil }
        let asOf: Int64 = row["asOf"], depth: Int = row["depth"], list: Data = row["list"]
        guard let changed = try rowsChanged(db, since: asOf) else { return nil }
        let gone = Set(changed)
        var figures = Data(capacity: list.count)
        var removed = 0
        list.withUnsafeBytes { bytes in
            for at in stride(from: 0, to: bytes.count - 23, by: 24) {
                if gone.contains(bytes.loadUnaligned(fromByteOffset: at, as: Int64.self)) { removed += 1 } else { figures.append(contentsOf: bytes[at..<at + 24]) }
            }
        }
        guard keep + removed <= depth else { return nil }
        if !changed.isEmpty {
            for blob in try Data.fetchAll(db, sql: """
                SELECT docent_figures(files_fts, \(weights)) FROM files_fts WHERE files_fts MATCH ? AND rowid IN (\(placeholders(changed.count)))
                """, arguments: StatementArguments([FTSExpression.quote(tokens[0])] + changed.map { $0 as any DatabaseValueConvertible })) {
                figures.append(blob)
            }
        }
        return figures
    }

    // MARK: Making the lists

    /// One step of the lists' upkeep (`tidyWhileIdle`, after FTS5's merges): when a round is
    /// due, the words in many files are found in a sample of rows, then each step makes lists
    /// for ~200 ms. True while the round has words left. A round is due when lists fell behind
    /// (more rows changed than a search looks up) or the index grew or shrank by a quarter
    /// since its words were sampled, and never sooner than `restFactor` times the last round's
    /// length after it.
    func rankedListsStep(until limit: Duration = .milliseconds(200), now: ContinuousClock.Instant = .now,
                         minimumRows: Int = RankedLists.minimumRows) throws(IndexError) -> Bool {
        let upkeep = rankedLists.withLock { $0 }
        var round: RankedLists.Round
        if let current = upkeep.round {
            round = current
        } else {
            if let rest = upkeep.restUntil, now < rest { return false }
            guard let terms = try roundDue(minimumRows: minimumRows) else { return false }
            round = RankedLists.Round(terms: terms, started: now)
        }
        let made = try makeRankedLists(round.terms, until: limit)
        round.terms.removeFirst(made.count)
        round.made += made
        if round.terms.isEmpty {
            try finishRound(round.made, extras: try makeCodesAndFilters(filterRows: min(minimumRows, FilterLists.minimumRows)), minimumRows: minimumRows)
            let took = ContinuousClock.now - round.started
            rankedLists.withLock {
                $0.round = nil
                $0.restUntil = .now + took * RankedLists.restFactor
            }
            return false
        }
        rankedLists.withLock { $0.round = round }
        return true
    }

    /// Every list made again now, when a round is due (after a run that wrote: `upkeepAfterRun`).
    func makeRankedListsIfDue(minimumRows: Int = RankedLists.minimumRows) throws(IndexError) {
        rankedLists.withLock { $0 = .init() }
        while try rankedListsStep(until: .seconds(3600), minimumRows: minimumRows) {}
    }

    /// The words of a new round, or nil when none is due. Turns the changes' log on first, so
    /// that every row written after the lists are read is logged.
    private func roundDue(minimumRows: Int) throws(IndexError) -> [String]? {
        let (rows, logged, sampled, behind) = try read { db in
            // FTS5's own count, read at a row of a listed word (a walk of `files` takes 10 ms at a
            // million rows); counted when no list is kept, where a round is due at that size anyway.
            let listed = try String.fetchOne(db, sql: "SELECT term FROM ranked_lists LIMIT 1")
            let rows = try listed.flatMap {
                try Int.fetchOne(db, sql: "SELECT docent_rows(files_fts) FROM files_fts WHERE files_fts MATCH ? LIMIT 1",
                                 arguments: [FTSExpression.quote($0)])
            } ?? Int.fetchOne(db, sql: "SELECT count(*) FROM files") ?? 0
            let logged = try Int.fetchOne(db, sql: "SELECT sampledRows FROM ranked_logging")
            // The log on and no list: a first round that did not end (the process stopped).
            let sampled = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ranked_lists)") == true ? logged : nil
            let behind = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM (SELECT DISTINCT id FROM ranked_changes WHERE seq > (SELECT min(asOf) FROM ranked_lists) LIMIT ?)
                """, arguments: [RankedLists.changesLooked + 1]) ?? 0
            // Lists without length codes (an index made before them): due as if behind.
            let uncoded = try sampled != nil && Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM ranked_lengths)") == true
            return (rows, logged, sampled, behind > RankedLists.changesLooked || uncoded)
        }
        let last = sampled ?? rankedLists.withLock(\.sampledRows)
        let grown = last.map { rows * 4 >= $0 * 5 || rows * 5 <= $0 * 4 } ?? true
        guard behind || (grown && (rows >= minimumRows || logged != nil)) else { return nil }
        rankedLists.withLock { $0.sampledRows = rows }
        if rows < minimumRows {
            try write { db in try db.execute(sql: "DELETE FROM ranked_lists; DELETE FROM ranked_logging; DELETE FROM ranked_changes; DELETE FROM ranked_lengths; DELETE FROM ranked_filters") }
            return nil
        }
        try write { db in
            try db.execute(sql: "DELETE FROM ranked_logging")
            try db.execute(sql: "INSERT INTO ranked_logging (sampledRows) VALUES (?)", arguments: [rows])
        }
        return try read { db in
            let listed = try String.fetchAll(db, sql: "SELECT term FROM ranked_lists")
            return Array(Set(listed).union(try Self.commonTerms(db, rows: rows, minimumRows: minimumRows))).sorted()
        }
    }

    /// The index's tokens that a sample of rows shows in at least 80% of `minimumRows` of the
    /// index's `rows` (each row's first 64 KB of text looked at; a word in exactly `minimumRows`
    /// of a million rows is found nine times in ten).
    static func commonTerms(_ db: Database, rows: Int, minimumRows: Int) throws -> [String] {
        guard let low = try Int64.fetchOne(db, sql: "SELECT min(id) FROM files"),
              let high = try Int64.fetchOne(db, sql: "SELECT max(id) FROM files") else { return [] }
        var generator = SystemRandomNumberGenerator()
        let ids = Set((0..<RankedLists.sampleRows).map { _ in Int64.random(in: low...high, using: &generator) }).sorted()
        var counts: [String: Int] = [:]
        var sampled = 0
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            for row in try Row.fetchAll(db, sql: """
                SELECT substr(name || ' ' || title || ' ' || meta || ' ' || parts || ' ' || folders || ' ' || headings || ' ' || coalesce(body, ''), 1, 65536)
                FROM files_text WHERE id IN (\(placeholders(chunk.count)))
                """, arguments: StatementArguments(chunk)) {
                sampled += 1
                for token in Set(try tokens(of: [row[0] as String? ?? ""], db) ?? []) where !token.isEmpty { counts[token, default: 0] += 1 }
            }
        }
        guard sampled > 0 else { return [] }
        return counts.filter { $0.value * rows * 5 >= sampled * minimumRows * 4 }.map(\.key)
    }

    /// The lists of the first of `terms`, made for about `limit` from one snapshot of the index
    /// (FTS5's rows and the log's position in it); the rows' lengths, looked up once each, are
    /// remembered from one word to the next, and from one step to the next while nothing is
    /// written.
    func makeRankedLists(_ terms: [String], until limit: Duration) throws(IndexError) -> [RankedLists.Made] {
        let started = ContinuousClock.now
        return try read { db in
            let asOf = try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM ranked_changes") ?? 0
            var made: [RankedLists.Made] = []
            for term in terms {
                guard made.isEmpty || ContinuousClock.now - started < limit else { break }
                guard try Self.tokens(of: [term], db) == [term],
                      let blob = try Data.fetchOne(db, sql: """
                        SELECT docent_skyline(files_fts, \(Self.weights), \(RankedLists.depth)) FROM files_fts WHERE files_fts MATCH ? LIMIT 1
                        """, arguments: [FTSExpression.quote(term)]), blob.count >= 8
                else {
                    made.append(.init(term: term, rows: 0, list: Data(), asOf: asOf))
                    continue
                }
                made.append(.init(term: term, rows: blob.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }, list: Data(blob.dropFirst(8)), asOf: asOf))
            }
            return made
        }
    }

    /// Every row's length code, read from FTS5's docsize table in one pass, and the filter
    /// lists (0.14 s and ~0.25 s at a million rows).
    func makeCodesAndFilters(filterRows: Int = FilterLists.minimumRows) throws(IndexError) -> RankedLists.CodesAndFilters {
        try read { db in
            let asOf = try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM ranked_changes") ?? 0
            let records = try Data.fetchOne(db, sql: "SELECT docent_length_codes(id, sz) FROM files_fts_docsize") ?? Data()
            let record = 8 + Int(DOCENT_LENGTH_BLOCK)
            var blocks: [(block: Int64, codes: Data)] = []
            records.withUnsafeBytes { bytes in
                for at in stride(from: 0, to: bytes.count - record + 1, by: record) {
                    blocks.append((bytes.loadUnaligned(fromByteOffset: at, as: Int64.self), Data(bytes[(at + 8)..<(at + record)])))
                }
            }
            return RankedLists.CodesAndFilters(blocks: blocks, filters: try Self.makeFilterLists(db, minimumRows: filterRows), asOf: asOf)
        }
    }

    /// Stores the round's lists, each unless a newer one is there (a word in fewer than
    /// `minimumRows` rows loses its list), the length codes and the filter lists; then keeps
    /// the log only as far back as the oldest of them; no lists: no log, codes or filter lists.
    private func finishRound(_ made: [RankedLists.Made], extras: RankedLists.CodesAndFilters, minimumRows: Int) throws(IndexError) {
        try write { db in
            try db.execute(sql: "DELETE FROM ranked_lengths")
            for (block, codes) in extras.blocks {
                try db.execute(sql: "INSERT OR REPLACE INTO ranked_lengths (block, asOf, codes) VALUES (?, ?, ?)", arguments: [block, extras.asOf, codes])
            }
            try Self.storeFilterLists(extras.filters, asOf: extras.asOf, db)
            for list in made {
                guard list.rows >= minimumRows else {
                    try db.execute(sql: "DELETE FROM ranked_lists WHERE term = ?", arguments: [list.term])
                    continue
                }
                try db.execute(sql: """
                    INSERT INTO ranked_lists (term, weights, depth, asOf, rows, list) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (term) DO UPDATE SET weights = excluded.weights, depth = excluded.depth, asOf = excluded.asOf,
                        rows = excluded.rows, list = excluded.list WHERE excluded.asOf >= ranked_lists.asOf
                    """, arguments: [list.term, Self.weights, RankedLists.depth, list.asOf, list.rows, list.list])
            }
            if try Int.fetchOne(db, sql: "SELECT count(*) FROM ranked_lists") == 0 {
                try db.execute(sql: "DELETE FROM ranked_logging; DELETE FROM ranked_changes; DELETE FROM ranked_lengths; DELETE FROM ranked_filters")
            } else {
                try db.execute(sql: "DELETE FROM ranked_changes WHERE seq <= min((SELECT min(asOf) FROM ranked_lists), ?)", arguments: [extras.asOf])
            }
        }
    }
}
