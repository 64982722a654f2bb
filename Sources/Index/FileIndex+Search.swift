import Foundation
import GRDB

/// What to find.
public struct SearchRequest: Sendable {
    /// The full-text part; nil to match on filters alone.
    public var match: FTSExpression?
    /// Content type identifiers a hit's type must be one of (already expanded through
    /// conformance by the caller); nil for any.
    public var contentTypes: Set<String>?
    public var limit: Int
    /// Words that must not match (a query of exclusions only).
    public var excluded: FTSExpression?
    public var excludedContentTypes: Set<String> = []
    /// Filename extensions (without the dot), any of which the name must end with.
    public var extensions: [String] = []
    public var excludedExtensions: [String] = []
    /// Shell globs the name must match (case-insensitively).
    public var nameGlobs: [String] = []
    /// Directories (as bytes) the file must be under, any of them.
    public var directories: [[UInt8]] = []
    public var size: [SearchQuery.Comparison] = []
    public var modified: [SearchQuery.Comparison] = []
    /// Exact paths a hit must be one of (nil for any).
    public var paths: [[UInt8]]?
    /// Hosts a hit must come from, any of them (`host:`); empty for every host.
    public var hosts: [String] = []
    /// Whether hits get snippets (each costs a pass over the file's text).
    public var snippets = true
    /// Whether hits are ranked (BM25 for every match); without, they come newest first, for
    /// a caller that wants the set of matches (a live search comparing it after each commit).
    public var ranked = true
    /// Whether BM25's best are ranked again by what it does not know (`Relevance`: names,
    /// titles, translations, change logs); off, the store's own BM25 order alone.
    public var refined = true
    /// Hits to skip before the first one returned (the next page).
    public var offset = 0
    /// The order of the hits.
    public var order = SearchOrder.relevance

    public init(match: FTSExpression?, contentTypes: Set<String>? = nil, limit: Int = 20) {
        self.match = match
        self.contentTypes = contentTypes
        self.limit = limit
    }
}

/// The order hits come in (`docent search --sort`, the viewer's sort menu).
public enum SearchOrder: String, Sendable, CaseIterable {
    /// The best match first (ties: the newer first).
    case relevance
    /// The most recently modified first.
    case modified
    /// By name, A to Z (case folded), then path.
    case name
    /// The largest first.
    case size

    /// The SQL ordering over `files` (SQLite and PostgreSQL alike), for an order other than relevance.
    package func sql(table: String) -> String {
        switch self {
        case .relevance, .modified: "\(table).modified DESC, \(table).id DESC"
        case .name: "lower(\(table).name), \(table).path"
        case .size: "\(table).size DESC, \(table).id DESC"
        }
    }
}

/// One search result.
public struct SearchHit: Sendable, Hashable {
    /// The file's row id: stable while the file keeps its path (and across a move).
    public var id: Int64
    public var path: [UInt8]
    public var contentType: String
    public var title: String?
    /// BM25 relevance, higher is better (0 when matching on filters alone): it compares the hits
    /// of one search, never those of two (a query of one word leaves out its IDF, for instance).
    public var score: Double
    /// Text around the matched terms; each match is between `SearchHit.matchStart` and `matchEnd`.
    public var snippet: String
    public var modified: Int64
    /// The host the file is on, when that is not this machine (a shared PostgreSQL index).
    public var host: String?

    public init(id: Int64, path: [UInt8], contentType: String, title: String?, score: Double, snippet: String, modified: Int64,
                host: String? = nil) {
        (self.id, self.path, self.contentType, self.title, self.score, self.snippet, self.modified, self.host)
            = (id, path, contentType, title, score, snippet, modified, host)
    }

    /// Marks the start and end of a matched term in `snippet` (renderers replace them).
    public static let matchStart = "\u{2}", matchEnd = "\u{3}"

    public var displayPath: String { String(decoding: path, as: UTF8.self) }

    /// Where the file is: its path, and for another host's file (an index shared on
    /// PostgreSQL) `host:path`, scp's form, never a path of this machine.
    public var place: [UInt8] { host.map { Array($0.utf8) + [UInt8(ascii: ":")] + path } ?? path }

    /// `place` as text.
    public var displayPlace: String { String(decoding: place, as: UTF8.self) }

    /// The snippet as people read it: in NFC, without what a file's bytes leave between words
    /// — control characters, box drawing and blocks, the squares and replacement characters
    /// drawn for glyphs a document could not map — runs of spaces as one, and dot leaders as
    /// an ellipsis. The match markers stay.
    static func isDebris(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A: false
        case 0x00..<0x20, 0x7F...0x9F: true  // controls
        case 0x2500...0x259F: true  // box drawing, blocks
        case 0x25A1, 0xFFFD: true  // a white square or a replacement character for a glyph not mapped
        case 0xE000...0xF8FF: true  // private use: a font's own glyphs
        default: false
        }
    }

    public var readableSnippet: String {
        var out = String.UnicodeScalarView()
        var lastWasSpace = false
        // Foundation's NFC only where there is something to compose (an ASCII snippet is in NFC).
        let composed = snippet.utf8.contains { $0 >= 0x80 } ? snippet.precomposedStringWithCanonicalMapping : snippet
        for scalar in composed.unicodeScalars {
            let value = scalar.value
            if scalar == Self.matchStart.unicodeScalars.first || scalar == Self.matchEnd.unicodeScalars.first {
                out.append(scalar)
                continue
            }
            let debris = Self.isDebris(value)
            let space = debris || scalar.properties.isWhitespace
            if space {
                if !lastWasSpace, !out.isEmpty { out.append(" ") }
                lastWasSpace = true
            } else {
                out.append(scalar)
                lastWasSpace = false
            }
        }
        let text = String(out)
        // A table of contents' dot leaders ("Interpolation . . . . . . 815") as one ellipsis.
        guard text.contains("....") || text.contains(". . . .") else { return text }
        return text.replacing(/(?: ?\.){4,} ?/, with: " … ")
    }
}

extension FileIndex {
    /// Column weights for BM25: a match in the name counts ten times one in the body, the
    /// title five times, metadata and headings twice, an identifier's piece or a folder's name half.
    static let weights = "10.0, 5.0, 1.0, 2.0, 0.5, 0.5, 2.0"

    /// `text` with LIKE's wildcards escaped by a backslash.
    package static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    /// How many files match `request` (its limit and offset aside).
    public func count(_ request: SearchRequest) throws(IndexError) -> Int {
        var request = request
        request.match = try compounded(request.match)
        let (among, filters) = try rowsOfFewFiles(request)
        guard let (conditions, arguments) = conditions(request, among: filters) else { return 0 }
        let sql = """
            SELECT count(*) FROM \(request.match != nil ? "files_fts CROSS JOIN files ON files.id = files_fts.rowid" : "files")
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            """
        return try read { db in
            try Self.among(among, db) { try Int.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0 }
        }
    }

    /// The best `request.limit` hits after `request.offset`, by BM25 then recency (or in
    /// `request.order`).
    public func search(_ request: SearchRequest) throws(IndexError) -> [SearchHit] {
        // The match as FTS5 runs it: words typed apart that the index holds joined match the joining too.
        let typed = request.match
        var request = request
        request.match = try compounded(request.match)
        let (among, filters) = try rowsOfFewFiles(request)
        guard let (conditions, arguments) = conditions(request, among: filters) else { return [] }
        return try search(request, typed: typed, conditions: conditions, arguments: arguments, among: among,
                          except: try exception(request))
    }

    /// For a ranked match `A NOT B` whose `A` is one phrase (`python -perl`): `A`, and the rows
    /// `B` matches, sorted, when they are few (`fewFiles`). `docent_top` then walks `A` and
    /// leaves those rows out (rank.c), where the statement stepped through every match of `A`
    /// with its rank function (79,580 rows at a million files). The order is the statement's:
    /// FTS5's BM25 of `A NOT B` is `A`'s times `A`'s IDF, the same factor for every row.
    private func exception(_ request: SearchRequest) throws(IndexError) -> (positive: FTSExpression, rows: [Int64])? {
        guard request.ranked, request.order == .relevance, case .not(let positive, let negative)? = request.match, positive.isOnePhrase
        else { return nil }
        return try read { db in
            try Self.fewRows(db, "SELECT rowid AS id FROM files_fts WHERE files_fts MATCH ?", [negative.matchString]).map { (positive, $0) }
        }
    }

    /// `match` widened by the compounds this index holds (`FTSExpression.compounded`): each
    /// joining of two adjacent words looked up once (a point lookup in FTS5's terms).
    public func compounded(_ match: FTSExpression?) throws(IndexError) -> FTSExpression? {
        guard let match, case let candidates = match.compoundCandidates, !candidates.isEmpty else { return match }
        let held = try read { db in
            let files = try db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM files_fts WHERE files_fts MATCH ? LIMIT ?)")
            return Set(try candidates.filter { candidate in
                try FTSExpression.isCompound(candidate.joined, apart: candidate.apart) { expression, limit in
                    try Int.fetchOne(files, arguments: [expression.matchString, limit]) ?? 0
                }
            }.map(\.joined))
        }
        return match.compounded(held)
    }

    /// The SQL conditions of a request and their arguments; nil when nothing can match. The
    /// filters in `among` are tested by `docent_among` (see `rowsOfFewFiles`).
    func conditions(_ request: SearchRequest, among: AmongFilters = []) -> ([String], [any DatabaseValueConvertible])? {
        // One machine's index holds this host's files alone.
        if !request.hosts.isEmpty, !request.hosts.contains(where: { $0.lowercased() == host.lowercased() }) { return nil }
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if let match = request.match {
            conditions.append("files_fts MATCH ?")
            arguments.append(match.matchString)
        }
        if !among.isEmpty {
            conditions.append("docent_among(files_fts.rowid)")
        }
        if !among.contains(.types), let types = request.contentTypes {
            guard !types.isEmpty else { return nil }
            conditions.append("files.contentType IN (" + Array(repeating: "?", count: types.count).joined(separator: ", ") + ")")
            arguments.append(contentsOf: types.sorted() as [any DatabaseValueConvertible])
        }
        if let excluded = request.excluded {
            conditions.append("files.id NOT IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)")
            arguments.append(excluded.matchString)
        }
        if !request.excludedContentTypes.isEmpty {
            conditions.append("files.contentType NOT IN (" + Array(repeating: "?", count: request.excludedContentTypes.count).joined(separator: ", ") + ")")
            arguments.append(contentsOf: request.excludedContentTypes.sorted() as [any DatabaseValueConvertible])
        }
        if !request.extensions.isEmpty, !among.contains(.extensions) {
            let extensions = request.extensions.map { $0.lowercased() }
            if request.match == nil, extensions.allSatisfy(Self.isLastExtension) {
                // Without words, the index on the extension answers them (LIKE read every name:
                // `ext:md` alone); with words, the matches are tested (or `docent_among`'s).
                conditions.append("\(Self.filesExtension) IN (" + Array(repeating: "?", count: extensions.count).joined(separator: ", ") + ")")
                arguments.append(contentsOf: extensions as [any DatabaseValueConvertible])
            } else {
                conditions.append("(" + extensions.map { _ in "lower(files.name) LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")")
                arguments.append(contentsOf: extensions.map { "%." + Self.likeEscaped($0) } as [any DatabaseValueConvertible])
            }
        }
        for ext in request.excludedExtensions {
            conditions.append("lower(files.name) NOT LIKE ? ESCAPE '\\'")
            arguments.append("%." + Self.likeEscaped(ext.lowercased()))
        }
        for glob in request.nameGlobs {
            let folded = glob.lowercased()
            conditions.append("lower(files.name) GLOB ?")
            arguments.append(folded)
            // The glob's literal start as a range too, which the index on lower(name) answers;
            // without words, `*.md`'s extension, which the index on the extension answers (the
            // glob alone read every name: 1.3 s at a million files).
            if let (lower, upper) = Self.literalRange(ofGlob: folded) {
                conditions.append("lower(files.name) >= ? AND lower(files.name) < ?")
                arguments.append(contentsOf: [lower, upper] as [any DatabaseValueConvertible])
            } else if request.match == nil, let last = Self.lastExtension(ofGlob: folded) {
                conditions.append("\(Self.filesExtension) = ?")
                arguments.append(last)
            }
        }
        if !request.directories.isEmpty {
            var ranges: [String] = []
            for directory in request.directories {
                let (prefix, upper) = Self.subtreeRange(directory)
                ranges.append("(files.path >= ? AND files.path < ?)")
                arguments.append(contentsOf: [Data(prefix), Data(upper)] as [any DatabaseValueConvertible])
            }
            conditions.append("(" + ranges.joined(separator: " OR ") + ")")
        }
        if let paths = request.paths {
            guard !paths.isEmpty else { return nil }
            conditions.append("files.path IN (" + Array(repeating: "?", count: paths.count).joined(separator: ", ") + ")")
            arguments.append(contentsOf: paths.map { Data($0) } as [any DatabaseValueConvertible])
        }
        for (column, bounds) in [("size", request.size), ("modified", request.modified)] {
            for bound in bounds {
                conditions.append("files.\(column) \(bound.op.rawValue) ?")
                arguments.append(bound.value)
            }
        }
        return (conditions, arguments)
    }

    /// `typed`: the match as typed, before `compounded` widened `request.match`; names and
    /// titles are compared with its words.
    private func search(_ request: SearchRequest, typed: FTSExpression?, conditions: [String], arguments: [any DatabaseValueConvertible],
                        among: [Int64]? = nil, except: (positive: FTSExpression, rows: [Int64])? = nil) throws(IndexError) -> [SearchHit] {
        var arguments = arguments
        let joinsText = request.match != nil
        let ranked = joinsText && request.ranked && request.order == .relevance
        // First the ranking alone (BM25, docent_rank, for every match, then the order and the limit), then
        // snippets for the rows kept: a snippet costs a pass over the text, so it is never
        // made for a row the limit drops. The full-text match drives the join (CROSS JOIN keeps
        // SQLite from starting at `files`); a query of filters alone never touches FTS5.
        // With the match as the only condition, ranking needs nothing from `files`: FTS5 ranks
        // alone and only the rows kept are joined (ties at the limit go to the newer row).
        // BM25's best `Relevance.window` are ranked again (names, titles, translations) before
        // the page is cut from them; a page past the window keeps BM25's order.
        let reranks = ranked && request.refined && request.offset < Relevance.window
        let limit = reranks ? max(Relevance.window, request.offset + request.limit) : request.limit
        let offset = reranks ? 0 : max(request.offset, 0)
        // The rank function is told how many rows are kept (`limit + offset`): rows that cannot
        // be among them are never fully scored (rank.c, max-score pruning); the same rows come out.
        let rank = "-docent_rank(files_fts, \(Self.weights), \(limit + offset))"
        // Filters alone (`name:README*`) pick and order their rows first, from an index when they
        // can (`files_folded_name` holds each name's folded form and its modification time), and
        // only the rows kept are read whole: 4,906 READMEs in a million files were each read to
        // be sorted.
        // Conditions FTS5 answers alone: the match, and the rows of few types (`docent_among`).
        let textOnly = conditions.count == 1 || (conditions.count == 2 && among != nil)
        let sql = ranked && textOnly ? """
            SELECT files.id, files.path, files.contentType, files.title, files.modified, ranked.score
            FROM (SELECT rowid, \(rank) AS score FROM files_fts WHERE \(conditions.joined(separator: " AND "))
                  ORDER BY score DESC, rowid DESC LIMIT ? OFFSET ?) AS ranked
            CROSS JOIN files ON files.id = ranked.rowid
            ORDER BY ranked.score DESC, files.modified DESC
            """ : !joinsText && !conditions.isEmpty ? """
            SELECT files.id, files.path, files.contentType, files.title, files.modified, 0.0 AS score
            FROM (SELECT files.id AS id FROM files WHERE \(conditions.joined(separator: " AND "))
                  ORDER BY \(request.order.sql(table: "files")) LIMIT ? OFFSET ?) AS kept
            CROSS JOIN files ON files.id = kept.id
            ORDER BY \(request.order.sql(table: "files"))
            """ : """
            SELECT files.id, files.path, files.contentType, files.title, files.modified,
                   \(ranked ? rank : "0.0") AS score
            FROM \(joinsText ? "files_fts CROSS JOIN files ON files.id = files_fts.rowid" : "files")
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY \(ranked ? "score DESC, files.modified DESC" : request.order.sql(table: "files"))
            LIMIT ? OFFSET ?
            """
        arguments.append(limit)
        arguments.append(offset)
        return try read { db in try Self.among(among, db) {
            // A query of one phrase: its best rows in one call (`docent_top`), not a statement step per match.
            // A query of one phrase but for words typed with a minus (`exception`): the same, those files left out.
            let phrase = request.match.flatMap { $0.isOnePhrase ? ($0, []) : except }
            let top = try phrase.flatMap { phrase in
                ranked && textOnly
                    ? try Self.topRows(db, match: phrase.0, among: among, except: phrase.1, limit: limit, offset: offset) : nil
            }
            var hits = try top ?? Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { Self.hit($0, snippet: "") }
            // The window scored again by Docent's BM25 (before any other ranking on this connection).
            let kept = reranks ? try Self.kept(db, ids: hits.map(\.id)) : [:]
            if reranks { hits = Self.rescored(hits, kept: kept) }
            // Hits holding only part of a long question's words (their snippets are of any of them).
            var relaxed: Set<Int64> = []
            var relaxedWords: [String] = []
            if reranks, let match = request.match, let typed {
                // Only the window is ranked again, however long the page: the first hits of a
                // page of 5,000 are those of a page of 20, and the rest keep BM25's order (its
                // proximity, a lookup per row, took seconds over thousands of hits).
                let beyond = Array(hits.dropFirst(Relevance.window))
                hits = Array(hits.prefix(Relevance.window))
                // How near the words stand, for words that must all be there (not "either word").
                let near = typed.isConjunction && typed.parts > 1 ? try Self.proximities(db, ids: hits.map(\.id), match: match, kept: kept) : [:]
                // Titles that say part of a long question (page one only: the count is of full matches).
                // Not when nothing matches: a misspelt word is then for "did you mean" to mend.
                if request.offset == 0, !hits.isEmpty, let words = Self.relaxableWords(typed) {
                    let extra = try Self.relaxedHits(db, words: words, conditions: conditions, arguments: arguments.dropLast(2).map { $0 },
                                                     excluding: Set(hits.map(\.id)))
                    (relaxed, relaxedWords) = (Set(extra.map(\.id)), words)
                    hits += extra
                }
                hits = Array((Relevance.reranked(hits, for: typed, proximity: near) + beyond).dropFirst(max(request.offset, 0)).prefix(request.limit))
            }
            guard !hits.isEmpty, request.snippets else { return hits }
            var snippets = try Self.snippets(db, ids: hits.map(\.id).filter { !relaxed.contains($0) }, match: request.match)
            if case let ids = hits.map(\.id).filter(relaxed.contains), !ids.isEmpty {
                snippets.merge(try Self.snippets(db, ids: ids, match: .or(relaxedWords.map { .term($0) })), uniquingKeysWith: { a, _ in a })
            }
            return hits.map { hit in
                var hit = hit
                hit.snippet = snippets[hit.id] ?? ""
                return hit
            }
        } }
    }
}
