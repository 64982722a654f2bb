import Foundation
import GRDB

/// A question in other words than its answer's: `show disk space usage of file systems` is
/// answered by df(1), "report file system space usage", which never says "disk". Every word
/// must match in a search (so a long query narrows, as people expect), but a document whose
/// title or name holds one of a long query's words, and whose title and path (folders
/// included: `gnuplot draw a histogram`, gnuplot's page "Histograms") hold at least half of
/// them, is a candidate too, scored by the
/// same BM25 as the full matches' window (`docent_score`) over the words it has (a word it lacks adds nothing, so it ranks below one that
/// has them all unless its title says more).
extension FileIndex {
    /// The fewest words a query needs before titles holding only part of them are candidates.
    package static let relaxedWords = 3
    /// How many title matches are looked at.
    package static let relaxedCandidates = 100

    /// The plain words of a query all of whose parts are words, lowercased; nil for any other query.
    package static func relaxableWords(_ match: FTSExpression) -> [String]? {
        guard case .and(let parts) = match, parts.count >= relaxedWords else { return nil }
        var words: [String] = []
        for part in parts {
            guard case .term(let word) = part, !FTSExpression.isOneCJKCharacter(word) else { return nil }
            words.append(word.lowercased())
        }
        return Set(words).count >= relaxedWords ? words : nil
    }

    /// The query that finds the candidates: any of the words in a name or title.
    package static func relaxedCandidateMatch(_ words: [String]) -> FTSExpression {
        .columns(["name", "title"], .or(words.map { .term($0) }))
    }

    /// The candidates kept: not among the full matches, with at least half of the words (two
    /// at least) in their title or path.
    package static func relaxedKept(_ candidates: [SearchHit], words: [String], excluding: Set<Int64>) -> [SearchHit] {
        let needed = max(2, (words.count + 1) / 2)
        return candidates.filter { !excluding.contains($0.id) && Relevance.covered(words, path: $0.path, title: $0.title) >= needed }
    }

    /// Hits whose name or title holds at least half of `words` but which do not match them
    /// all, with their BM25 over the words they hold; `conditions` and `arguments` are the
    /// search's, the first condition its full-text match.
    static func relaxedHits(_ db: Database, words: [String], conditions: [String], arguments: [any DatabaseValueConvertible],
                            excluding: Set<Int64>) throws -> [SearchHit] {
        var arguments = arguments
        arguments[0] = relaxedCandidateMatch(words).matchString
        let rows = try Row.fetchAll(db, sql: """
            SELECT files.id, files.path, files.contentType, files.title, files.modified, 0.0 AS score
            FROM files_fts CROSS JOIN files ON files.id = files_fts.rowid
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY -docent_rank(files_fts, \(weights), \(relaxedCandidates)) DESC LIMIT \(relaxedCandidates)
            """, arguments: StatementArguments(arguments))
        let kept = relaxedKept(rows.map { hit($0, snippet: "") }, words: words, excluding: excluding)
        guard !kept.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: kept.count).joined(separator: ", ")
        var scores: [Int64: Double] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT rowid, -docent_score(files_fts, \(weights)) AS score FROM files_fts WHERE files_fts MATCH ? AND rowid IN (\(placeholders))
            """, arguments: StatementArguments([FTSExpression.or(words.map { .term($0) }).matchString] + kept.map(\.id))) {
            scores[row["rowid"]] = row["score"]
        }
        return kept.compactMap { hit in
            guard let score = scores[hit.id] else { return nil }
            var hit = hit
            hit.score = score
            return hit
        }
    }
}
