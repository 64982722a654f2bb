/// Two words typed apart that documents write as one: `file system` and "filesystem", `time
/// zone` and "timezone", `set up` and "setup". A search for both words finds the documents
/// that write the compound too: each pair of words side by side in a query (two plain words
/// of letters and digits, both to be matched) whose joining the index holds in at least
/// `minimumFiles` files matches as `((file AND system) OR filesystem)`. mount(8) says
/// "filesystem" throughout: before this, `mount file system` ranked it below twenty pages that
/// happen to say "file system".
///
/// The words as typed still decide what a result's name and title are compared with
/// (`Relevance`), and how near the words stand is measured between the words a document
/// holds. Both stores widen alike, each asking its own index which compounds it holds.
extension FTSExpression {
    /// Files the compound must be in (one file is as likely a typing slip or a URL).
    package static let compoundMinimumFiles = 2
    /// The compound must be in at least this share of as many files as hold both words apart:
    /// `timezone` 416 files against 529 with "time" and "zone", `filesystem` 958 against
    /// 7,362, `setup` 2,018 against 4,796 are compounds; `filetype` (185 against 5,269),
    /// `commandline` (214 against 5,153), `byname` (29 against 9,531) are names in code.
    package static let compoundShare = 10

    /// The joinings of adjacent words that could be compounds, each with the words apart, in
    /// the order met (each pair once).
    package var compoundCandidates: [(joined: String, apart: FTSExpression)] {
        var out: [(joined: String, apart: FTSExpression)] = []
        visitPairs { first, second in
            let joined = first + second
            if !out.contains(where: { $0.joined == joined }) { out.append((joined, .and([.term(first), .term(second)]))) }
        }
        return out
    }

    /// Whether the store holds `joined` as a compound of the words `apart`: in
    /// `compoundMinimumFiles` files at least, and in at least one file for every
    /// `compoundShare` that hold the words apart. `files(expression, limit)` counts the files
    /// matching an expression, up to `limit` (the work stays bounded by the compound's files).
    package static func isCompound<E: Error>(_ joined: String, apart: FTSExpression,
                                             files: (FTSExpression, Int) throws(E) -> Int) throws(E) -> Bool {
        let limit = 10_000
        let compound = try files(.term(joined), limit)
        guard compound >= compoundMinimumFiles else { return false }
        if compound >= limit { return true }
        return try files(apart, compound * compoundShare + 1) <= compound * compoundShare
    }

    /// The expression with each pair of adjacent words whose joining is in `held` matching the
    /// joining too; pairs are taken left to right, a word in one pair only.
    package func compounded(_ held: Set<String>) -> FTSExpression {
        guard !held.isEmpty else { return self }
        switch self {
        case .term, .prefix, .phrase: return self
        case .and(let parts):
            var out: [FTSExpression] = []
            var index = 0
            while index < parts.count {
                if index + 1 < parts.count, let first = Self.compoundable(parts[index]), let second = Self.compoundable(parts[index + 1]),
                   held.contains(first + second) {
                    out.append(.or([.and([parts[index], parts[index + 1]]), .term(first + second)]))
                    index += 2
                } else {
                    out.append(parts[index].compounded(held))
                    index += 1
                }
            }
            return out.count == 1 ? out[0] : .and(out)
        case .or(let parts): return .or(parts.map { $0.compounded(held) })
        case .not(let positive, let negative): return .not(positive.compounded(held), negative)
        case .columns(let names, let inner): return .columns(names, inner.compounded(held))
        }
    }

    /// Calls `body` with each pair of adjacent compoundable words of every conjunction.
    private func visitPairs(_ body: (String, String) -> Void) {
        switch self {
        case .term, .prefix, .phrase: return
        case .and(let parts):
            for (first, second) in zip(parts, parts.dropFirst()) {
                if let a = Self.compoundable(first), let b = Self.compoundable(second) { body(a, b) }
            }
            for part in parts { part.visitPairs(body) }
        case .or(let parts): for part in parts { part.visitPairs(body) }
        case .not(let positive, _): positive.visitPairs(body)
        case .columns(_, let inner): inner.visitPairs(body)
        }
    }

    /// The word of a plain term that can be half of a compound: ASCII letters and digits, two
    /// to twenty, lowercased; nil otherwise.
    private static func compoundable(_ part: FTSExpression) -> String? {
        guard case .term(let word) = part, (2...20).contains(word.utf8.count),
              word.utf8.allSatisfy({ ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") || ($0 >= 0x30 && $0 <= 0x39) })
        else { return nil }
        return word.lowercased()
    }
}
