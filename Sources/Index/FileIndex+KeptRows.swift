import Foundation
import GRDB

/// What a search asks of the rows it keeps, after ranking them: Docent's BM25 scores and the
/// words' proximity for the window ranked again (both worked out by `docent_rank` as it kept
/// them), and the snippets of the page.
extension FileIndex {
    /// The `keep` best rows of a query of one phrase and their scores, best first, found by
    /// `docent_top` (rank.c) in one call: the rows, scores and order of the ranked statement's
    /// `ORDER BY score DESC, rowid DESC LIMIT keep`. `among` (ascending) keeps only those rows,
    /// `except` (ascending) leaves those out. Nil when FTS5 reads the match as more than one phrase.
    /// `list`, the figures of a word's ranked list (`rankedCandidates`), is ranked in place of
    /// every row of the match.
    static func top(_ db: Database, match: String, among: [Int64]?, except: [Int64] = [], list: Data? = nil,
                    keep: Int) throws -> [(id: Int64, score: Double)]? {
        let set = among.map { ids in ids.withUnsafeBufferPointer { Data(buffer: $0) } }
        let left = except.isEmpty ? nil : except.withUnsafeBufferPointer { Data(buffer: $0) }
        guard let row = try Row.fetchOne(db, sql: """
            SELECT docent_top(files_fts, \(weights), \(keep), ?, ?, ?) FROM files_fts WHERE files_fts MATCH ? LIMIT 1
            """, arguments: [set, left, list, match]) else { return [] }  // no row matches
        guard let blob = row[0] as Data? else { return nil }
        return blob.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count - 15, by: 16).map {
                (bytes.loadUnaligned(fromByteOffset: $0, as: Int64.self), bytes.loadUnaligned(fromByteOffset: $0 + 8, as: Double.self))
            }
        }
    }

    /// The page of a ranked search of one phrase (`top`), as rows of `files` with their scores,
    /// ordered by score and recency as the ranked statement orders them. Nil when the match is
    /// not of one phrase, or the rows are too many to bind: the search then runs its statement.
    static func topRows(_ db: Database, match: FTSExpression, among: [Int64]?, except: [Int64], limit: Int, offset: Int) throws -> [SearchHit]? {
        let keep = limit + offset
        guard keep > 0, keep <= 10_000 else { return nil }
        if among?.isEmpty == true { return [] }  // a filter no file passes
        // A word in many files, unfiltered: its ranked list (`RankedLists`) when it has one.
        let list = among == nil && except.isEmpty ? try rankedCandidates(db, expression: match, keep: keep) : nil
        guard let best = try top(db, match: match.matchString, among: among, except: except, list: list, keep: keep) else { return nil }
        let page = best.dropFirst(max(offset, 0)).prefix(limit)
        guard !page.isEmpty else { return [] }
        let values = Array(repeating: "(?, ?)", count: page.count).joined(separator: ", ")
        return try Row.fetchAll(db, sql: """
            SELECT files.id, files.path, files.contentType, files.title, files.modified, ranked.column2 AS score
            FROM (VALUES \(values)) AS ranked CROSS JOIN files ON files.id = ranked.column1
            ORDER BY ranked.column2 DESC, files.modified DESC
            """, arguments: StatementArguments(page.flatMap { [$0.id, $0.score] as [any DatabaseValueConvertible] })).map { hit($0, snippet: "") }
    }

    /// What docent_rank kept of one row: Docent's BM25 score and the words' proximity.
    typealias Kept = (score: Double?, near: Double?)

    /// What the search's docent_rank kept of each row of `ids` (rank.c): its score by Docent's
    /// BM25 parameters (`docent_rescored`) and how near the query's words stand in it
    /// (`docent_kept_proximity`), each nil where not kept; one statement for both.
    static func kept(_ db: Database, ids: [Int64]) throws -> [Int64: Kept] {
        guard !ids.isEmpty else { return [:] }
        let values = Array(repeating: "(?)", count: ids.count).joined(separator: ", ")
        var kept: [Int64: Kept] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT column1 AS id, -docent_rescored(column1) AS score, docent_kept_proximity(column1) AS near FROM (VALUES \(values))
            """, arguments: StatementArguments(ids)) {
            kept[row["id"]] = (row["score"], row["near"])
        }
        return kept
    }

    /// `hits`, BM25's best by bm25()'s parameters, with their scores by Docent's (`docent_score`,
    /// rank.c), which the search's docent_rank `kept` for the rows it kept: ranking is in two
    /// stages, because Docent's parameters bound a row's score too loosely to prune by. All or
    /// none: a row without one (never, short of memory) leaves the window as bm25() had it.
    static func rescored(_ hits: [SearchHit], kept: [Int64: Kept]) -> [SearchHit] {
        guard hits.allSatisfy({ kept[$0.id]?.score != nil }) else { return hits }
        return hits.map { hit in
            var hit = hit
            hit.score = kept[hit.id]!.score!
            return hit
        }
    }

    /// How near the query's words stand in each row of `ids` (`docent_proximity`: the mean
    /// closest distance of consecutive words, 1 side by side; 0 for a query of one word): as
    /// the search's docent_rank `kept` them, else asked of FTS5 (which runs the match again for
    /// each row: a prefix's terms merged again each time).
    static func proximities(_ db: Database, ids: [Int64], match: FTSExpression, kept: [Int64: Kept]) throws
        -> [Int64: Double] {
        var near: [Int64: Double] = [:]
        for id in ids { if let value = kept[id]?.near { near[id] = value } }
        guard near.count < ids.count else { return near }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        for row in try Row.fetchAll(db, sql: """
            SELECT rowid, docent_proximity(files_fts) AS near FROM files_fts WHERE files_fts MATCH ? AND rowid IN (\(placeholders))
            """, arguments: StatementArguments([match.matchString] + ids)) { near[row["rowid"]] = row["near"] }
        return near
    }

    /// The snippet of each row in `ids` (`docent_snippet`: the body's best fragment when the
    /// body matched, else the matching column's); the start of the body for filters alone.
    static func snippets(_ db: Database, ids: [Int64], match: FTSExpression?) throws -> [Int64: String] {
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        var snippets: [Int64: String] = [:]
        guard let match else {
            for row in try Row.fetchAll(db, sql: """
                SELECT id, substr(docent_inflate(body, 480), 1, 120) AS snippet FROM texts WHERE id IN (\(placeholders))
                """, arguments: StatementArguments(ids)) { snippets[row["id"]] = row["snippet"] }
            return snippets
        }
        // FTS5 answers `rowid IN (…)` by running the match again for each id: for a long page,
        // one pass over the match instead, a snippet made only for the rows asked for (4,426: 2.5 s);
        // for a prefix too, whose terms FTS5 merges each time it runs (`licen*` at a million
        // files: 60 ms for twenty snippets, 7 ms in one pass).
        let perRow = ids.count <= 64 && !match.runsAsPrefix
        let sql = perRow
            ? "SELECT rowid, docent_snippet(files_fts) AS snippet FROM files_fts WHERE rowid IN (\(placeholders)) AND files_fts MATCH ?"
            : """
              SELECT rowid, docent_snippet(files_fts) AS snippet FROM files_fts
              WHERE files_fts MATCH ? AND rowid BETWEEN \(ids.min()!) AND \(ids.max()!) AND +rowid IN (\(placeholders))
              """
        // (`+rowid`: the list tested on each match, never handed to FTS5 as rows to look up.)
        let (rows, text): ([any DatabaseValueConvertible], [any DatabaseValueConvertible]) = (ids, [match.matchString])
        let arguments = perRow ? rows + text : text + rows
        for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
            if let snippet = row["snippet"] as String? { snippets[row["rowid"]] = snippet }
        }
        return snippets
    }
}
