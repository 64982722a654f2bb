import CSnippet
import Foundation
import GRDB

/// A word of a query that the index holds in few files or none, and the closest word it holds.
public struct SpellingSuggestion: Sendable, Hashable, Codable {
    /// The word as typed.
    public var word: String
    /// The suggested word: the typed word with one edit (a letter left out, added, changed,
    /// or two swapped), which the index holds in many more files.
    public var suggestion: String
    /// How many files hold the suggestion (as the index's stemming finds it).
    public var files: Int
    /// How many files hold the word as typed.
    public var filesTyped: Int

    /// How many times as many files as the typed word the suggestion must be held by to be
    /// searched too without being asked (`--fuzzy`), as a slip far likelier than a rare word
    /// (`subproces`, in 12 of the bench corpus's files as part of names, against `subprocess`'s
    /// 644). A suggestion is made from ten times as many.
    public static let confidentRatio = 20

    /// Whether it is searched with the typed word even when the typed word matches: the
    /// search says so ("Also searched"), and the typed word's own hits stay.
    public var isConfident: Bool { files >= Self.confidentRatio * max(filesTyped, 1) }
}

extension FileIndex {
    /// Suggestions for the words of `match` that the index holds in no file or in few
    /// (at most one file in a thousand, and at least ten times fewer than the suggestion).
    ///
    /// Candidates are the typed word's variants at one edit (deletions, insertions,
    /// substitutions, transpositions: Damerau–Levenshtein distance 1), stemmed as the index
    /// stems, each looked up once per stem in FTS5 (a point lookup, not a scan of the
    /// vocabulary). They are ranked by their number of files weighted by how likely the edit
    /// is as a typing slip: two letters swapped, a doubled or undoubled letter, a neighbour
    /// on a QWERTY keyboard, a vowel for a vowel rank above other edits. Words of ASCII
    /// letters only (3 to 24 of them); other words (CJK bigrams, accented words, numbers)
    /// get none.
    public func suggestions(for match: FTSExpression?) throws(IndexError) -> [SpellingSuggestion] {
        let words = match?.plainWords ?? []
        guard !words.isEmpty else { return [] }
        return try read { db in
            let exists = try db.cachedStatement(sql: "SELECT 1 FROM files_fts WHERE files_fts MATCH ? LIMIT 1")
            return try Spelling.suggestions(
                for: words,
                // FTS5's own count of its rows, read at a row of the word (0 when no file holds it).
                total: { held in
                    try Int.fetchOne(db, sql: "SELECT docent_rows(files_fts) FROM files_fts WHERE files_fts MATCH ? LIMIT 1",
                                     arguments: [FTSExpression.quote(held)]) ?? 0
                },
                stems: { words in try Self.tokens(of: words, db) },
                held: { variants in try variants.filter { try Int.fetchOne(exists, arguments: [FTSExpression.quote($0)]) != nil } },
                files: { word, limit in try Self.files(holding: word, limit: limit, db) })
        }
    }

    /// How many files hold `word` (stemmed as the index stems it), counted up to `limit` when
    /// one is given (FTS5 then stops walking the word's postings there).
    static func files(holding word: String, limit: Int? = nil, _ db: Database) throws -> Int {
        guard let limit else {
            return try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM files_fts WHERE files_fts MATCH ?"),
                                    arguments: [FTSExpression.quote(word)]) ?? 0
        }
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM files_fts WHERE files_fts MATCH ? LIMIT ?)"),
                                arguments: [FTSExpression.quote(word), limit]) ?? 0
    }

    /// The index's tokens (stemmed, folded) of each of `words`, which must be one token each.
    static func tokens(of words: [String], _ db: Database) throws -> [String]? {
        let text = words.joined(separator: " ")
        let capacity = text.utf8.count * 2 + 64
        var buffer = [CChar](repeating: 0, count: capacity)
        let length = text.withCString { pointer in
            docent_index_tokens(UnsafeMutableRawPointer(db.sqliteConnection), pointer, Int32(strlen(pointer)), &buffer, Int32(capacity))
        }
        guard length >= 0 else { return nil }
        let bytes = buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

/// Variants of a word at one edit, and how likely each is as a typing slip; the choice of
/// suggestions, whatever the store (it says how many files hold a word, and which words it
/// holds at all).
package enum Spelling {
    struct Variant: Hashable {
        var word: String
        var weight: Double
    }

    /// Suggestions for `words` (as typed) that a store holds in no file or in few (at most one
    /// file in a thousand, and at least ten times fewer than the suggestion). `total(word)`
    /// gives how many files the store holds (asked with a typed word: a full-text index keeps
    /// its own count and reads it at a row of the word, so it may say 0 when no file holds
    /// the word), `stems` the store's token of each word (nil unless one
    /// each), `held` those of some words the store holds, `files(word, limit)` how many files
    /// hold a word, counted at most to `limit` when one is given.
    ///
    /// A typed word is counted no further than the threshold: a common word, which gets no
    /// suggestion, cost a count of all its files (298,000 of a million: 30 ms) on every search
    /// at a terminal or under `--json`.
    package static func suggestions<E: Error>(for words: [String], total: (String) throws(E) -> Int,
                                              stems: ([String]) throws(E) -> [String]?,
                                              held: ([String]) throws(E) -> [String],
                                              files: (String, Int?) throws(E) -> Int) throws(E) -> [SpellingSuggestion] {
        var out: [SpellingSuggestion] = []
        var seen: Set<String> = []
        var stored: Int?
        for typed in words {
            let word = typed.lowercased()
            guard seen.insert(word).inserted, isCandidate(word) else { continue }
            var most = stored ?? 0
            if stored == nil {
                most = try total(word)
                if most > 0 { stored = most }
            }
            let typedFiles = try files(word, most / 1000 + 1)
            guard typedFiles <= most / 1000 else { continue }
            let variants = Self.variants(of: word)
            guard let tokens = try stems([word] + variants.map(\.word)), tokens.count == variants.count + 1 else { continue }
            // One variant per stem (the likeliest slip), the typed word's own stem left out.
            var byStem: [String: Variant] = [:]
            for (variant, stem) in zip(variants, tokens.dropFirst()) where stem != tokens[0] {
                if let kept = byStem[stem], kept.weight >= variant.weight { continue }
                byStem[stem] = variant
            }
            // A word some files hold is not "corrected" to a variant whose stem is only its own
            // beginning: `pagerank` (17 files) is no slip for `pagerant`, which stems to `pager`.
            if typedFiles > 0 { byStem = byStem.filter { !word.hasPrefix($0.key) } }
            let weights = Dictionary(byStem.values.map { ($0.word, $0.weight) }) { first, _ in first }
            var best: (word: String, files: Int, score: Double)?
            for candidate in try held(byStem.values.map(\.word).sorted()) {
                let count = try files(candidate, nil)
                guard count >= max(1, typedFiles * 10), let weight = weights[candidate] else { continue }
                let score = weight * log2(2 + Double(count))
                if best.map({ score > $0.score || (score == $0.score && candidate < $0.word) }) ?? true {
                    best = (candidate, count, score)
                }
            }
            if let best { out.append(SpellingSuggestion(word: typed, suggestion: best.word, files: best.files, filesTyped: typedFiles)) }
        }
        return out
    }

    static func isCandidate(_ word: String) -> Bool {
        (3...24).contains(word.utf8.count) && word.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
    }

    static let letters = Array("abcdefghijklmnopqrstuvwxyz")
    static let vowels: Set<Character> = ["a", "e", "i", "o", "u", "y"]
    /// Keys next to each other on a QWERTY keyboard.
    static let neighbours: [Character: Set<Character>] = {
        let rows = ["qwertyuiop", "asdfghjkl", "zxcvbnm"].map(Array.init)
        var out: [Character: Set<Character>] = [:]
        for (r, row) in rows.enumerated() {
            for (c, key) in row.enumerated() {
                var near: Set<Character> = []
                if c > 0 { near.insert(row[c - 1]) }
                if c + 1 < row.count { near.insert(row[c + 1]) }
                for other in [r - 1, r + 1] where rows.indices.contains(other) {
                    // The row above sits half a key left of this one, the row below half a key right.
                    let offsets = other < r ? [c, c + 1] : [c - 1, c]
                    for k in offsets where rows[other].indices.contains(k) { near.insert(rows[other][k]) }
                }
                out[key] = near
            }
        }
        return out
    }()

    /// Every word one edit away from `word` (lowercase ASCII letters), each with its weight.
    static func variants(of word: String) -> [Variant] {
        let w = Array(word)
        var out: [String: Double] = [:]
        func add(_ letters: [Character], _ weight: Double) {
            let variant = String(letters)
            if variant != word, out[variant, default: 0] < weight { out[variant] = weight }
        }
        for i in w.indices {
            // Left out: more likely when it doubles its neighbour.
            var deleted = w
            deleted.remove(at: i)
            add(deleted, (i > 0 && w[i - 1] == w[i]) || (i + 1 < w.count && w[i + 1] == w[i]) ? 0.9 : 0.5)
            if i + 1 < w.count, w[i] != w[i + 1] {
                var swapped = w
                swapped.swapAt(i, i + 1)
                add(swapped, 1.0)
            }
            for letter in letters where letter != w[i] {
                var changed = w
                changed[i] = letter
                let weight = neighbours[w[i]]?.contains(letter) == true ? 0.8
                    : vowels.contains(w[i]) && vowels.contains(letter) ? 0.7 : 0.4
                add(changed, weight)
            }
        }
        for i in 0...w.count {
            for letter in letters {
                var inserted = w
                inserted.insert(letter, at: i)
                let doubles = (i > 0 && w[i - 1] == letter) || (i < w.count && w[i] == letter)
                add(inserted, doubles ? 0.9 : 0.5)
            }
        }
        return out.map { Variant(word: $0.key, weight: $0.value) }.sorted { $0.word < $1.word }
    }
}

extension FTSExpression {
    /// The words typed as plain terms or inside phrases (not prefixes), in order.
    public var plainWords: [String] { words(withPrefixes: false) }

    /// The words of the positive part, in order: terms, phrases' words, and with `withPrefixes`
    /// the prefixes' beginnings.
    public func words(withPrefixes: Bool) -> [String] {
        switch self {
        case .term(let word): [word]
        case .prefix(let start): withPrefixes ? [start] : []
        case .phrase(let words): words.flatMap { $0.split(separator: " ").map(String.init) }
        case .and(let parts), .or(let parts): parts.flatMap { $0.words(withPrefixes: withPrefixes) }
        case .not(let positive, _): positive.words(withPrefixes: withPrefixes)
        case .columns(_, let expression): expression.words(withPrefixes: withPrefixes)
        }
    }

    /// The expression with each misspelt word matching its suggestion too.
    public func widened(with suggestions: [SpellingSuggestion]) -> FTSExpression {
        widened(with: Dictionary(suggestions.map { ($0.word.lowercased(), [$0.suggestion]) }, uniquingKeysWith: +))
    }

    /// The expression with each term in `alternatives` (by its lowercased word) matching its
    /// alternatives too: `recieve` → `(recieve OR receive)`.
    public func widened(with alternatives: [String: [String]]) -> FTSExpression {
        switch self {
        case .term(let word):
            guard let others = alternatives[word.lowercased()], !others.isEmpty else { return self }
            return .or([.term(word)] + others.map { .term($0) })
        case .prefix, .phrase: return self
        case .and(let parts): return .and(parts.map { $0.widened(with: alternatives) })
        case .or(let parts): return .or(parts.map { $0.widened(with: alternatives) })
        case .not(let positive, let negative): return .not(positive.widened(with: alternatives), negative)
        case .columns(let names, let expression): return .columns(names, expression.widened(with: alternatives))
        }
    }
}
