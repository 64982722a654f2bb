import Foundation
import Index

extension PostgresIndex {
    /// How near the query's words stand in each row of `ids`, as SQLite's `docent_proximity`
    /// says it: the mean, over each pair of consecutive words (a phrase or a prefix counts as
    /// one), of their closest distance in positions within one field (1 side by side;
    /// `far` for a pair never in one field); nil for a query it does not apply to (one
    /// part, or not all of them required). Read from `rank_fts`, the positions of the name,
    /// title, metadata, folders and the text's first kilobyte (what ranking reads): the
    /// whole text's vector is out in TOAST, and reading it for 50 rows would cost more than
    /// the search. Fields are told apart by their weights (the text and the folders share D).
    func proximities(ids: [Int64], match: FTSExpression) throws(IndexError) -> [Int64: Double] {
        guard match.isConjunction, match.parts > 1, !ids.isEmpty else { return [:] }
        let words = try TextWords()
        guard let parts = Self.proximityParts(match, words: words) else { return [:] }
        let exact = parts.filter { !$0.prefix }.map(\.token), prefixes = parts.filter(\.prefix).map { FileIndex.likeEscaped($0.token) + "%" }
        let rows = try run { connection throws(IndexError) in
            try connection.execute("""
                SELECT f.id, u.lexeme, u.positions, u.weights FROM docent_files f, unnest(f.rank_fts) u
                WHERE f.id = ANY($1::bigint[]) AND (u.lexeme = ANY($2::text[]) OR u.lexeme LIKE ANY($3::text[]))
                """, [.text("{" + ids.map(String.init).joined(separator: ",") + "}"), .text(Self.arrayLiteral(exact)), .text(Self.arrayLiteral(prefixes))])
        }
        // Each row's positions of each lexeme, as (field, position).
        var lexemes: [Int64: [String: [(Character, Int)]]] = [:]
        for row in 0..<rows.count {
            let positions = Self.arrayItems(rows.string(row, 2) ?? "").compactMap { Int($0) }
            let weights = Self.arrayItems(rows.string(row, 3) ?? "").map { $0.first ?? "D" }
            guard positions.count == weights.count else { continue }
            lexemes[rows.int(row, 0), default: [:]][rows.string(row, 1) ?? "", default: []] += zip(weights, positions).map { ($0, $1) }
        }
        var near: [Int64: Double] = [:]
        for id in ids {
            let held = lexemes[id] ?? [:]
            let positions = parts.map { part in
                (part.prefix ? held.filter { $0.key.hasPrefix(part.token) }.flatMap(\.value) : held[part.token] ?? []).sorted { $0.1 < $1.1 }
            }
            let pairs = zip(positions, positions.dropFirst()).map { Self.closest($0, $1) }
            near[id] = Double(pairs.reduce(0, +)) / Double(pairs.count)
        }
        return near
    }

    /// A pair of words never in one field, as `docent_proximity`'s PROXIMITY_FAR.
    static let far = 1000

    /// The closest two positions of `x` and `y` in one field (at least 1 apart), or `far`.
    static func closest(_ x: [(Character, Int)], _ y: [(Character, Int)]) -> Int {
        var best = far
        for (field, position) in x {
            for (other, at) in y where other == field {
                let distance = abs(at - position)
                if distance >= 1, distance < best { best = distance }
            }
        }
        return best
    }

    /// The query's parts in order, each as the index's first token of it (a phrase by its
    /// first word, as FTS5 gives a phrase's place by its start); nil when a part has none.
    static func proximityParts(_ match: FTSExpression, words: TextWords) -> [(token: String, prefix: Bool)]? {
        switch match {
        case .term(let word): words.tokens(of: word).first.map { [($0, false)] }
        case .prefix(let start): words.tokens(of: start, prefix: true).first.map { [($0, true)] }
        case .phrase(let phrase): phrase.first.flatMap { words.tokens(of: $0).first }.map { [($0, false)] }
        case .and(let parts):
            parts.reduce([(token: String, prefix: Bool)]?([])) { list, part in list.flatMap { list in proximityParts(part, words: words).map { list + $0 } } }
        case .not(let positive, _): proximityParts(positive, words: words)
        case .columns(_, let inner): proximityParts(inner, words: words)
        case .or: nil
        }
    }

    /// The items of a one-dimensional array's text form without quotes (`{1,5}`, `{A,D}`).
    static func arrayItems(_ text: String) -> [Substring] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",")
    }
}
