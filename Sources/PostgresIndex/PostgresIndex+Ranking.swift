import Foundation

/// What ts_rank's scores are made of, and the bounds a search for any of some words uses to
/// rank only the rows that could reach its page (`search`).
extension PostgresIndex {
    /// A score at or below this is no score: ts_rank gives words joined by AND 1e-20 when
    /// fewer than two of them are in the vector, divided by the logarithm of its length.
    static let unscored = 1e-10

    /// Weights of the text (D), metadata (C), title (B) and name (A) for `ts_rank`, in
    /// PostgreSQL's order: as SQLite's BM25 weights 1, 2, 5, 10 (scaled).
    static let weights = (d: 0.1, c: 0.2, b: 0.5, a: 1.0)
    static let rankWeights = "{\(weights.d), \(weights.c), \(weights.b), \(weights.a)}"

    /// The rows whose `rank_fts` holds a query word in the name or title (weights A, B).
    static func named(_ anyWord: String) -> String { "ts_filter(f.rank_fts, '{a,b}') @@ \(anyWord)::tsquery" }

    /// The rows whose `rank_fts` holds a query word in the headings or metadata (weight C).
    static func described(_ anyWord: String) -> String { "ts_filter(f.rank_fts, '{c}') @@ \(anyWord)::tsquery" }

    /// The most a query word's term in ts_rank's `calc_rank_or` (PostgreSQL 15, tsrank.c) can
    /// be when it is in the text alone (`textBound`) or in the headings or metadata too
    /// (`describedBound`), with a margin for float4's rounding. The term is the greatest
    /// weight among the word's places plus the sum of their weights over the square of their
    /// rank, less the greatest over the square of its rank, all over pi²/6. A word's places
    /// come in the order of the fields, which `vectors` puts in the order of their weights
    /// (name A, title B, metadata and headings C, folders and text D), so its first place
    /// weighs the most, and the term is the sum over pi²/6: under the first place's weight.
    static let textBound = weights.d * 1.001
    static let describedBound = weights.c * 1.001

    /// For a query of any of some exact words (`TSQuery.isAnyExactWord`) whose best named rows
    /// (`named`) fill the limit, the last of them scoring `score`: the number of words a
    /// vector whose query words' terms are at most `most` (`textBound`, `describedBound`)
    /// must have fewer of to score as high; nil when that leaves too many rows to be worth
    /// it. The terms are averaged over the query's words, and normalization 1 divides by
    /// log2(1 + the vector's positions), at least log2(1 + `length(rank_fts)`, its entries).
    static func namedFirstCut(below score: Double, most: Double) -> Int? {
        guard score > 0 else { return nil }
        // The least length L with most / log2(L + 1) < score.
        let cut = Int((pow(2, most / score) - 1).rounded(.down)) + 1
        return cut <= 256 ? cut : nil
    }
}
