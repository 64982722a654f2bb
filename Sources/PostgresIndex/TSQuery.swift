import Index

/// The query language in PostgreSQL's terms: an `FTSExpression` as `tsquery` text whose
/// lexemes are the tokens the SQLite index's tokenizer makes of each word the user typed
/// (TextWords: stemmed, folded, CJK bigrams), each quoted, so no word is read as tsquery
/// syntax; the whole a bound parameter, never SQL. A word the tokenizer splits (`os.path`,
/// a CJK run) is a phrase of its tokens, as in FTS5.
enum TSQuery {
    ///
    /// `relaxed`: a query every text the exact one matches also matches, which the GIN index
    /// answers without reading a single vector (phrases as all their words, no field weights,
    /// negated parts left out): the exact query is then tested on the best-ranked rows only.
    static func text(_ expression: FTSExpression, words: TextWords, weights: String = "", relaxed: Bool = false) -> String {
        let weights = relaxed ? "" : weights
        func lexemes(_ tokens: [String], prefixLast: Bool) -> String {
            guard !tokens.isEmpty else { return nothing }
            let quoted = tokens.enumerated().map { i, token in
                quote(token) + (prefixLast && i == tokens.count - 1 ? ":*" + weights : weights.isEmpty ? "" : ":" + weights)
            }
            return quoted.count == 1 ? quoted[0] : "(" + quoted.joined(separator: relaxed ? " & " : " <-> ") + ")"
        }
        func text(_ expression: FTSExpression, weights: String = weights) -> String {
            TSQuery.text(expression, words: words, weights: weights, relaxed: relaxed)
        }
        switch expression {
        case .term(let word):
            // One Han, Kana or Hangul character is in no bigram of its own: the bigrams it starts.
            return FTSExpression.isOneCJKCharacter(word) ? lexemes(words.tokens(of: word, prefix: true), prefixLast: true)
                : lexemes(words.tokens(of: word), prefixLast: false)
        case .prefix(let word): return lexemes(words.tokens(of: word, prefix: true), prefixLast: true)
        case .phrase(let parts): return lexemes(words.tokens(of: parts.joined(separator: " ")), prefixLast: false)
        case .and(let parts): return "(" + parts.map { text($0) }.joined(separator: " & ") + ")"
        case .or(let parts): return "(" + parts.map { text($0) }.joined(separator: " | ") + ")"
        case .not(let positive, let negative):
            return relaxed ? text(positive) : "(" + text(positive) + " & !" + text(negative) + ")"
        case .columns(let names, let inner):
            return text(inner, weights: names.map { ["name": "A", "title": "B", "meta": "C", "body": "D", "parts": "D"][$0] ?? "" }.joined())
        }
    }

    /// `token` as a tsquery lexeme: in single quotes, quotes doubled, backslashes escaped.
    static func quote(_ token: String) -> String {
        "'" + token.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Any of the words a text must hold for `expression` to match it (its negated parts left
    /// out), as one tsquery: what a row's `rank_fts` holds for `ts_rank` to score it above 0.
    /// Nil when there is no such word.
    static func anyWord(_ expression: FTSExpression, words: TextWords) -> String? {
        let all = Set(items(expression, words: words)).sorted()
        return all.isEmpty ? nil : all.joined(separator: " | ")
    }

    /// The lexemes of `expression`'s words as tsquery items, in order (a prefix's last with
    /// `:*`; its negated parts left out): the items `ts_rank` looks up in a vector.
    static func items(_ expression: FTSExpression, words: TextWords) -> [String] {
        switch expression {
        case .term(let word) where FTSExpression.isOneCJKCharacter(word): return items(.prefix(word), words: words)
        case .term(let word): return words.tokens(of: word).map(quote)
        case .prefix(let word):
            let tokens = words.tokens(of: word, prefix: true)
            return tokens.indices.map { quote(tokens[$0]) + ($0 == tokens.count - 1 ? ":*" : "") }
        case .phrase(let parts): return parts.flatMap { items(.term($0), words: words) }
        case .and(let parts), .or(let parts): return parts.flatMap { items($0, words: words) }
        case .not(let kept, _): return items(kept, words: words)
        case .columns(_, let inner): return items(inner, words: words)
        }
    }

    /// What a row's `rank_fts` holds when `ts_rank` scores it above nothing for `expression`
    /// (its negated parts left out), as one tsquery the GIN index answers, and whether every
    /// row holding it matches `expression` (every word of `rank_fts` is in `fts` too). For
    /// any of some words, any of them. For words and phrases joined by AND, and a phrase, two
    /// of their words: `calc_rank_and` (PostgreSQL 15, tsrank.c, for a query whose top is AND
    /// or a phrase) scores each pair of the query's distinct words found in the vector and
    /// gives nothing to a vector holding fewer than two; for exactly two words joined by AND,
    /// the pair is the query itself. Otherwise any of the query's words (`anyWord`).
    static func scored(_ expression: FTSExpression, words: TextWords) -> (query: String, impliesMatch: Bool)? {
        if isAnyWord(expression, words: words) { return anyWord(expression, words: words).map { ($0, true) } }
        let fallback = anyWord(expression, words: words).map { ($0, false) }
        // Words and phrases joined by AND (no OR, negation or field within).
        func conjunction(_ expression: FTSExpression) -> Bool {
            switch expression {
            case .term, .prefix, .phrase: true
            case .and(let parts): parts.allSatisfy(conjunction)
            case .or, .not, .columns: false
            }
        }
        let list = items(expression, words: words)
        guard conjunction(expression), list.count > 1 else { return fallback }
        // ts_rank tells its items apart by the lexeme alone, so a word asked for both whole
        // and as a prefix takes the general path.
        let distinct = Set(list)
        guard Set(distinct.map { $0.hasSuffix(":*") ? String($0.dropLast(2)) : $0 }).count == distinct.count,
              distinct.count <= 6 else { return fallback }
        let sorted = distinct.sorted()
        // Two parts, each one word: the query is the pair (or the one word, repeated).
        var plain = false
        if case .and(let parts) = expression { plain = parts.allSatisfy { isAnyWord($0, words: words) } && distinct.count <= 2 }
        guard sorted.count > 1 else { return plain ? (sorted[0], true) : fallback }
        let pairs = sorted.indices.flatMap { i in sorted[(i + 1)...].map { "(\(sorted[i]) & \($0))" } }
        return (pairs.joined(separator: " | "), plain)
    }

    /// Whether `expression` asks for any one of some words, each one token (a term, a prefix,
    /// their OR): then a text holding one of them matches it.
    static func isAnyWord(_ expression: FTSExpression, words: TextWords) -> Bool {
        switch expression {
        case .term(let word): words.tokens(of: word, prefix: FTSExpression.isOneCJKCharacter(word)).count == 1
        case .prefix(let word): words.tokens(of: word, prefix: true).count == 1
        case .or(let parts): parts.allSatisfy { isAnyWord($0, words: words) }
        case .phrase, .and, .not, .columns: false
        }
    }

    /// Whether `expression` asks for any one of some words, each one token and none a prefix:
    /// then ts_rank scores a text by the weights and places of those words' own entries alone
    /// (a prefix sums over every word it matches), which `namedFirstCut` bounds.
    static func isAnyExactWord(_ expression: FTSExpression, words: TextWords) -> Bool {
        switch expression {
        case .term(let word): !FTSExpression.isOneCJKCharacter(word) && words.tokens(of: word).count == 1
        case .or(let parts): parts.allSatisfy { isAnyExactWord($0, words: words) }
        case .prefix, .phrase, .and, .not, .columns: false
        }
    }

    /// A query that no text matches (a word and its negation).
    static let nothing = "('nothing' & !'nothing')"

    /// A shell glob (`*`, `?`, `[…]`) as an anchored POSIX regular expression.
    static func regex(ofGlob glob: String) -> String {
        var out = "^"
        var inClass = false
        for c in glob {
            if inClass {
                if c == "]" { inClass = false; out += "]" } else if c == "\\" { out += "\\\\" } else { out.append(c) }
                continue
            }
            switch c {
            case "*": out += ".*"
            case "?": out += "."
            case "[": inClass = true; out += "["
            case ".", "+", "(", ")", "{", "}", "^", "$", "|", "\\": out += "\\" + String(c)
            default: out.append(c)
            }
        }
        return out + (inClass ? "]" : "") + "$"
    }
}
