import CSnippet

/// A full-text query, built from parts, that becomes an FTS5 `MATCH` string in which every
/// word the user typed is a double-quoted FTS5 string: user text can never be read as FTS5
/// syntax, and never reaches SQL except as a bound parameter.
public indirect enum FTSExpression: Sendable, Hashable {
    /// A word (stemmed like the text).
    case term(String)
    /// Words starting with this.
    case prefix(String)
    /// Words in this order, adjacent.
    case phrase([String])
    /// Every part must match.
    case and([FTSExpression])
    /// Any part may match.
    case or([FTSExpression])
    /// The first matches and the second does not.
    case not(FTSExpression, FTSExpression)
    /// The expression, restricted to the named columns (`name`, `title`, `body`, `meta`, `parts`).
    case columns([String], FTSExpression)

    /// The FTS5 query string.
    public var matchString: String {
        switch self {
        // One Han, Kana or Hangul character is in no bigram of its own: the bigrams it starts.
        case .term(let word): Self.isOneCJKCharacter(word) ? Self.quote(word) + " *" : Self.quote(word)
        case .prefix(let word): Self.quote(word) + " *"
        case .phrase(let words): Self.quote(words.joined(separator: " "))
        case .and(let parts): parts.count == 1 ? parts[0].matchString : "(" + parts.map(\.matchString).joined(separator: " AND ") + ")"
        case .or(let parts): parts.count == 1 ? parts[0].matchString : "(" + parts.map(\.matchString).joined(separator: " OR ") + ")"
        case .not(let positive, let negative): "(" + positive.matchString + " NOT " + negative.matchString + ")"
        case .columns(let names, let expression): "{" + names.joined(separator: " ") + "} : (" + expression.matchString + ")"
        }
    }

    /// What a reader sees marked in a document's text: any of the words, prefixes and
    /// phrases the expression asks for — not those it excludes, nor those asked of other
    /// fields only (`title:`). Nil when nothing is left to mark.
    public var highlighted: FTSExpression? {
        switch self {
        case .term, .prefix, .phrase: return self
        case .and(let parts), .or(let parts):
            let marked = parts.compactMap(\.highlighted)
            return marked.isEmpty ? nil : marked.count == 1 ? marked[0] : .or(marked)
        case .not(let positive, _): return positive.highlighted
        case .columns(let names, let expression): return names.contains("body") ? expression.highlighted : nil
        }
    }

    /// Whether FTS5 runs part of it as a prefix query (a prefix, or one CJK character), which
    /// merges every term under the prefix each time the expression runs.
    public var runsAsPrefix: Bool {
        switch self {
        case .term(let word): Self.isOneCJKCharacter(word)
        case .prefix: true
        case .phrase: false
        case .and(let parts), .or(let parts): parts.contains(where: \.runsAsPrefix)
        case .not(let positive, let negative): positive.runsAsPrefix || negative.runsAsPrefix
        case .columns(_, let inner): inner.runsAsPrefix
        }
    }

    /// Whether FTS5 reads it as one phrase (a word, a prefix or a phrase, in any columns): its
    /// rows are then those of that phrase alone, which `docent_top` walks in one call.
    public var isOnePhrase: Bool {
        switch self {
        case .term, .prefix, .phrase: true
        case .and(let parts), .or(let parts): parts.count == 1 && parts[0].isOnePhrase
        case .not: false
        case .columns(_, let inner): inner.isOnePhrase
        }
    }

    /// Whether `word` is a single character that the index holds only in bigrams.
    package static func isOneCJKCharacter(_ word: String) -> Bool {
        let scalars = word.unicodeScalars
        return scalars.count == 1 && docent_is_cjk(scalars.first!.value) != 0
    }

    /// `text` as an FTS5 string: in double quotes, with embedded quotes doubled.
    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
