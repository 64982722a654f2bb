import Foundation
public import Index

extension PostgresIndex {
    /// The settings a searching store's connections start with (see `search`).
    static let searchSettings = ["enable_seqscan": "off"]

    /// What a search's statement returns of each hit, in `found`'s order.
    static let hitColumns = "c.id, c.host, c.path, c.content_type, c.title, c.modified, c.score"

    /// The best `request.limit` hits of every host, by `ts_rank` over the name, title,
    /// metadata and first 1 KB of text (`rank_fts`; normalized by its length), then recency;
    /// snippets by Docent's own `docent_snippet` for the rows kept (TextWords).
    public func search(_ request: SearchRequest) throws(IndexError) -> [SearchHit] {
        // The match as the index runs it: words typed apart that it holds joined match the
        // joining too (as SQLite's); names, titles and nearness are of the words as typed.
        let typed = request.match
        var request = request
        request.match = try compounded(request.match)
        // The best `Relevance.window` ranked again as SQLite's are (names, titles, nearness,
        // translations), then the page cut from them, then its snippets.
        if let typed, request.ranked, request.refined, request.order == .relevance, request.offset < Relevance.window {
            var widened = request
            (widened.limit, widened.offset, widened.snippets) = (max(Relevance.window, request.offset + request.limit), 0, false)
            var found = try search(widened, counted: nil)
            // How near the words stand, for words that must all be there (`proximities`).
            let near = try proximities(ids: found.map(\.id), match: typed)
            // Titles that say part of a long question, as with SQLite (`FileIndex.relaxedHits`).
            let relaxable = request.offset == 0 && !found.isEmpty ? FileIndex.relaxableWords(typed) : nil
            var relaxed: Set<Int64> = []
            if let words = relaxable {
                var candidates = widened
                (candidates.match, candidates.limit) = (FileIndex.relaxedCandidateMatch(words), FileIndex.relaxedCandidates)
                let extra = FileIndex.relaxedKept(try search(candidates, counted: nil), words: words, excluding: Set(found.map(\.id)))
                if !extra.isEmpty {
                    relaxed = Set(extra.map(\.id))
                    found = try rescored(found + extra, words: words)
                }
            }
            let hits = Array(Relevance.reranked(found, for: typed, proximity: near).dropFirst(request.offset).prefix(request.limit))
            guard request.snippets, !hits.isEmpty else { return hits }
            let snippets = try run { connection throws(IndexError) in
                let words = try TextWords()
                var snippets = try Self.snippets(connection, ids: hits.map(\.id).filter { !relaxed.contains($0) }, match: request.match, words: words)
                if let any = relaxable.map({ FTSExpression.or($0.map { .term($0) }) }), case let ids = hits.map(\.id).filter(relaxed.contains), !ids.isEmpty {
                    snippets.merge(try Self.snippets(connection, ids: ids, match: any, words: words)) { a, _ in a }
                }
                return snippets
            }
            return hits.map { hit in
                var hit = hit
                hit.snippet = snippets[hit.id] ?? ""
                return hit
            }
        }
        guard request.offset > 0 else { return try search(request, counted: nil) }
        // A later page: the pages before it found, and left out (the two tiers below rank
        // from the top).
        var widened = request
        (widened.limit, widened.offset) = (request.offset + request.limit, 0)
        return Array(try search(widened, counted: nil).dropFirst(request.offset))
    }

    /// How many files match `request`, its limit and offset aside.
    public func count(_ request: SearchRequest) throws(IndexError) -> Int {
        var request = request
        request.match = try compounded(request.match)
        var count = 0
        _ = try search(request, counted: { count = $0 })
        return count
    }

    /// `match` widened by the compounds this index holds (`FTSExpression.compounded`), as
    /// SQLite's is: each joining of two adjacent words counted, bounded by its own files.
    public func compounded(_ match: FTSExpression?) throws(IndexError) -> FTSExpression? {
        guard let match, case let candidates = match.compoundCandidates, !candidates.isEmpty else { return match }
        let words = try TextWords()
        let held = try run { connection throws(IndexError) -> Set<String> in
            var held: Set<String> = []
            for candidate in candidates where try FTSExpression.isCompound(candidate.joined, apart: candidate.apart, files: { expression, limit throws(IndexError) in
                Int(try connection.execute("SELECT count(*) FROM (SELECT 1 FROM docent_files WHERE fts @@ $1::tsquery LIMIT $2) s",
                                           [.text(TSQuery.text(expression, words: words)), .int(Int64(limit))]).int(0, 0))
            }) { held.insert(candidate.joined) }
            return held
        }
        return match.compounded(held)
    }

    /// The hits, or (with `counted`) how many there are.
    private func search(_ request: SearchRequest, counted: ((Int) -> Void)?) throws(IndexError) -> [SearchHit] {
        let words = try TextWords()
        var conditions: [String] = []
        var parameters: [SQLValue] = []
        func bind(_ value: SQLValue) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        // The match as the GIN index answers it alone (`relaxed`), the files a top-level
        // negation names left out by their ids (a hashed anti-join: testing the negation on
        // each match read every match's whole vector), and the exact query, when it differs,
        // tested on the ranked rows until the limit is reached.
        var query: String?
        var exact: String?
        var matching: String?
        var scored: (query: String, impliesMatch: Bool)?
        var exactWords = false
        if let match = request.match {
            var positive = match
            while case .not(let kept, let negative) = positive {
                conditions.append("f.id NOT IN (SELECT id FROM docent_files WHERE fts @@ \(bind(.text(TSQuery.text(negative, words: words))))::tsquery)")
                positive = kept
            }
            let (full, relaxed) = (TSQuery.text(positive, words: words), TSQuery.text(positive, words: words, relaxed: true))
            query = bind(.text(full))
            scored = TSQuery.scored(positive, words: words)  // what a scoring row holds
            if full == relaxed {
                matching = "f.fts @@ \(query!)::tsquery"
                exactWords = TSQuery.isAnyExactWord(positive, words: words)
            } else {
                matching = "f.fts @@ \(bind(.text(relaxed)))::tsquery"
                exact = query
                scored?.impliesMatch = false  // `exact` tests the rest
            }
        }
        if let types = request.contentTypes {
            guard !types.isEmpty else { return [] }
            conditions.append("f.content_type = ANY(\(bind(.text(Self.arrayLiteral(types.sorted()))))::text[])")
        }
        if let excluded = request.excluded {
            conditions.append("f.id NOT IN (SELECT id FROM docent_files WHERE fts @@ \(bind(.text(TSQuery.text(excluded, words: words))))::tsquery)")
        }
        if !request.excludedContentTypes.isEmpty {
            conditions.append("f.content_type != ALL(\(bind(.text(Self.arrayLiteral(request.excludedContentTypes.sorted()))))::text[])")
        }
        if !request.extensions.isEmpty {
            let patterns = request.extensions.map { "%." + FileIndex.likeEscaped($0.lowercased()) }
            conditions.append("lower(f.name) LIKE ANY(\(bind(.text(Self.arrayLiteral(patterns))))::text[])")
        }
        for ext in request.excludedExtensions {
            conditions.append("lower(f.name) NOT LIKE \(bind(.text("%." + FileIndex.likeEscaped(ext.lowercased()))))")
        }
        for glob in request.nameGlobs {
            let folded = glob.lowercased()
            conditions.append("lower(f.name) ~ \(bind(.text(TSQuery.regex(ofGlob: folded))))")
            // The glob's literal start as a LIKE prefix too, which the text_pattern_ops index answers.
            let start = String(folded.prefix { $0 != "*" && $0 != "?" && $0 != "[" })
            if !start.isEmpty { conditions.append("lower(f.name) LIKE \(bind(.text(FileIndex.likeEscaped(start) + "%")))") }
        }
        if !request.directories.isEmpty {
            var ranges: [String] = []
            for directory in request.directories {
                let (lower, upper) = FileIndex.subtreeRange(directory)
                ranges.append("(f.path >= \(bind(.bytes(lower))) AND f.path < \(bind(.bytes(upper))))")
            }
            conditions.append("(" + ranges.joined(separator: " OR ") + ")")
        }
        if let paths = request.paths {
            guard !paths.isEmpty else { return [] }
            conditions.append("f.host = \(bind(.text(host))) AND f.path IN (" + paths.map { bind(.bytes($0)) }.joined(separator: ", ") + ")")
        }
        for (column, bounds) in [("size", request.size), ("modified", request.modified)] {
            for bound in bounds { conditions.append("f.\(column) \(bound.op.rawValue) \(bind(.int(bound.value)))") }
        }
        if !request.hosts.isEmpty {
            conditions.append("lower(f.host) = ANY(\(bind(.text(Self.arrayLiteral(request.hosts.map { $0.lowercased() }))))::text[])")
        }
        // Ranked in two tiers: ts_rank reads only `rank_fts` (the name, title, metadata and
        // first kilobyte), so a match whose `rank_fts` holds none of the query's words has no
        // score (`unscored`), and those come by recency after the others. The first tier, the
        // matches with a score, is found through `rank_fts`'s own GIN index and ranked; the
        // second, every other match by recency, is read only when the first has fewer rows
        // than the limit. (Ranking all 6,430 matches of a common word read every one of their
        // rows: 16 ms in a new server backend.)
        if let counted {
            let all = conditions + (matching.map { [$0] } ?? []) + (exact.map { ["f.fts @@ \($0)::tsquery"] } ?? [])
            let sql = "SELECT count(*) FROM docent_files f" + (all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND "))
            return try run { connection throws(IndexError) in
                counted(Int(try connection.execute(sql, parameters).int(0, 0)))
                return []
            }
        }
        let ranked = query != nil && request.ranked && request.order == .relevance
        let limit = bind(.int(Int64(request.limit)))
        // Bound last: the second tier has the first's ids in its place.
        let scoring = ranked ? scored.map { bind(.text($0.query)) } : nil
        func statement(ranking: Bool, extra: [String] = []) -> String {
            let score = ranking ? "ts_rank('\(Self.rankWeights)', f.rank_fts, \(query!)::tsquery, 1)" : "0.0"
            let order = ranking || request.order == .relevance ? "ORDER BY \(ranking ? "score DESC, " : "")modified DESC"
                : "ORDER BY " + request.order.sql(table: "f")
            // The ranked tier needs no test of `fts` when what scores implies the match
            // (`TSQuery.scored`): its GIN scan of a prefix's words was half of `licen*`'s time.
            let conditions = conditions + (ranking && scoring != nil && scored?.impliesMatch == true ? [] : matching.map { [$0] } ?? []) + extra
            // Names alone: the rows kept are chosen first by their ids, which the index on
            // the folded name holds with the name and the date (migration v7), and only
            // theirs are read; choosing them from whole rows read every name the glob matched.
            if query == nil, !request.nameGlobs.isEmpty, request.order == .relevance || request.order == .modified {
                return """
                    SELECT f.id, f.host, f.path, f.content_type, f.title, f.modified, 0.0 AS score
                    FROM docent_files f
                    WHERE f.id IN (SELECT f.id FROM docent_files f WHERE \(conditions.joined(separator: " AND ")) \(order) LIMIT \(limit))
                    \(order) LIMIT \(limit)
                    """
            }
            let inner = """
                SELECT f.id, f.host, f.path, f.content_type, f.title, f.modified, \(score) AS score\(exact != nil ? ", f.fts" : "")
                FROM docent_files f
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                \(order)
                """
            // The exact test on the ordered rows, kept out of the subquery by OFFSET 0, runs on
            // the rows in their order and stops at the limit; without it, the limit is the
            // subquery's own, and PostgreSQL keeps only the best rows as it goes (a full sort
            // of a common word's 10,756 ranked matches took 9 ms); the vector it tests is not
            // sent (50 rows' `fts` as text took 290 ms of a phrase's 470 at a million rows).
            return exact.map { "SELECT \(Self.hitColumns) FROM (\(inner) OFFSET 0) c WHERE c.fts @@ \($0)::tsquery \(order) LIMIT \(limit)" }
                ?? inner + " LIMIT \(limit)"
        }
        return try run { connection throws(IndexError) in
            // The planner takes a common word's matches (a third of the files) as cheaper to find
            // by reading the whole table, not counting that testing each row means reading its
            // vector out of TOAST: 160 ms for `python` against a few ms through the GIN index.
            // (A searching store's connections start so: `searchSettings`.)
            let setting = query != nil && connection.settings["enable_seqscan"] != "off"
            if setting { try connection.execute("SET enable_seqscan = off") }
            defer { if setting { _ = try? connection.execute("RESET enable_seqscan") } }
            func found(_ rows: Connection.Result) -> [SearchHit] {
                (0..<rows.count).map { row in
                    let host = rows.string(row, 1) ?? ""
                    return SearchHit(id: rows.int(row, 0), path: rows.bytes(row, 2), contentType: rows.string(row, 3) ?? "",
                                     title: rows.string(row, 4), score: rows.double(row, 6) ?? 0, snippet: "",
                                     modified: rows.int(row, 5), host: host == self.host ? nil : host)
                }
            }
            var hits: [SearchHit]
            if let scoring {
                // A row scoring no more than `unscored` belongs to the second tier. More than one
                // set of conditions: each ranked and limited alone, in one statement.
                func rank(_ extras: [String]...) throws(IndexError) -> [SearchHit] {
                    let sql = extras.map { "(" + statement(ranking: true, extra: $0) + ")" }.joined(separator: " UNION ALL ")
                    return found(try connection.execute(sql, parameters)).filter { $0.score > Self.unscored }
                }
                // The rows with a query word in a name or title first: when they fill the limit,
                // only rows with too few words to score lower than the last of them could come
                // between (`namedFirstCut`): those holding the words in their text alone under
                // one length, those with them in headings or metadata under a longer one (all
                // of these when it is too long), and they are ranked with them.
                var settled: [SearchHit]?
                if exactWords {
                    let named = try rank([Self.named(scoring)])
                    if named.count == request.limit, case let last = named[named.count - 1].score,
                       let cut = Self.namedFirstCut(below: last, most: Self.textBound) {
                        let others = "NOT (\(Self.named(scoring)))"
                        let longer = Self.namedFirstCut(below: last, most: Self.describedBound).map { ["length(f.rank_fts) < \($0)"] } ?? []
                        let short = try rank(["f.rank_fts @@ \(scoring)::tsquery", "length(f.rank_fts) < \(cut)", others],
                                             [Self.described(scoring), "length(f.rank_fts) >= \(cut)"] + longer + [others])
                        settled = Array((named + short).sorted { ($0.score, $0.modified) > ($1.score, $1.modified) }.prefix(request.limit))
                    }
                }
                if let settled { hits = settled } else { hits = try rank(["f.rank_fts @@ \(scoring)::tsquery"]) }
                if hits.count < request.limit {
                    let ranked = "{" + hits.map { String($0.id) }.joined(separator: ",") + "}"
                    let unranked = "f.id != ALL(\(scoring)::bigint[])"
                    let rest = found(try connection.execute(statement(ranking: false, extra: [unranked]), parameters.dropLast() + [.text(ranked)]))
                    hits += rest.prefix(request.limit - hits.count)
                }
            } else {
                hits = found(try connection.execute(statement(ranking: ranked), parameters))
            }
            guard request.snippets, !hits.isEmpty else { return hits }
            let snippets = try Self.snippets(connection, ids: hits.map(\.id), match: request.match, words: words)
            for i in hits.indices { hits[i].snippet = snippets[hits[i].id] ?? "" }
            return hits
        }
    }

    /// `hits` scored again by `ts_rank` over any of `words`: the full matches and the titles
    /// holding part of the words on one scale (ts_rank's scores for all of some words and for
    /// any of them are not comparable).
    private func rescored(_ hits: [SearchHit], words: [String]) throws(IndexError) -> [SearchHit] {
        let query = TSQuery.text(.or(words.map { .term($0) }), words: try TextWords())
        let scores = try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT id, ts_rank('\(Self.rankWeights)', rank_fts, $1::tsquery, 1) FROM docent_files WHERE id = ANY($2::bigint[])
                """, [.text(query), .text("{" + hits.map { String($0.id) }.joined(separator: ",") + "}")])
            return Dictionary((0..<rows.count).map { (rows.int($0, 0), rows.double($0, 1) ?? 0) }, uniquingKeysWith: { a, _ in a })
        }
        return hits.map { hit in
            var hit = hit
            hit.score = scores[hit.id] ?? hit.score
            return hit
        }
    }

    /// How much of a text is read for its snippet: first its first `snippetStart`
    /// characters, where the best-ranked hits almost always match (ranking weighs the first
    /// kilobyte); for a row whose match is further, its first `snippetWindow` (a long text's
    /// `head`: never the whole text). A match past that shows the text's start.
    static let snippetStart = 4_096
    static let snippetWindow = PostgresIndex.headCharacters

    /// Each row's snippet: as the SQLite index makes it (`docent_snippet`, through
    /// TextWords), from the part of the row's text read (`snippetStart`, `snippetWindow`);
    /// the text's start when that does not hold the match, or for filters alone.
    private static func snippets(_ connection: Connection, ids: [Int64], match: FTSExpression?,
                                 words: TextWords) throws(IndexError) -> [Int64: String] {
        func read(_ ids: [Int64], characters: Int) throws(IndexError) -> [TextWords.SnippetSource] {
            let rows = try connection.execute("""
                SELECT id, name, title, metadata, left(coalesce(head, body), \(characters)) FROM docent_files WHERE id = ANY($1::bigint[])
                """, [.text("{" + ids.map(String.init).joined(separator: ",") + "}")])
            return (0..<rows.count).map { row in
                TextWords.SnippetSource(id: rows.int(row, 0), name: rows.string(row, 1) ?? "", title: rows.string(row, 2),
                                        metadata: rows.string(row, 3), body: rows.string(row, 4) ?? "", parts: "")
            }
        }
        let start = try read(ids, characters: match == nil ? 120 : snippetStart)
        var out: [Int64: String] = [:]
        if let match {
            out = try words.snippets(start, match: match)
            // Only a text cut short can hold the match further on.
            let further = start.filter { out[$0.id] == nil && $0.body.unicodeScalars.count == snippetStart }.map(\.id)
            if !further.isEmpty { out.merge(try words.snippets(try read(further, characters: snippetWindow), match: match)) { $1 } }
        }
        for source in start where out[source.id] == nil {
            out[source.id] = String(source.body.prefix(120)).split(whereSeparator: \.isNewline).joined(separator: " ")
        }
        return out
    }

    /// "Did you mean", as with SQLite (`Spelling`): the typed word's variants at one edit,
    /// stemmed by `TextWords`, those the index holds found in one statement (a GIN lookup
    /// each), then the files of each counted. Over every host's files.
    public func suggestions(for match: FTSExpression?) throws(IndexError) -> [SpellingSuggestion] {
        let typed = match?.plainWords ?? []
        guard !typed.isEmpty else { return [] }
        let words = try TextWords()
        // Each word's token, the variants' made in one pass (joined, as FileIndex does).
        var known: [String: String] = [:]
        func token(_ word: String) -> String? {
            if let token = known[word] { return token }
            let tokens = words.tokens(of: word)
            return tokens.count == 1 ? tokens[0] : nil
        }
        return try run { connection throws(IndexError) in
            return try Spelling.suggestions(
                for: typed,
                // The threshold is one file in a thousand: the rows counted, or past 200,000 the
                // planner's estimate (counting a large table reads all of it).
                total: { _ throws(IndexError) in
                    let estimate = Int(try connection.execute("""
                        SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'docent_files'::regclass
                        """).int(0, 0))
                    return estimate > 200_000 ? estimate : Int(try connection.execute("SELECT count(*) FROM docent_files").int(0, 0))
                },
                stems: { list throws(IndexError) in
                    let tokens = words.tokens(of: list.joined(separator: " "))
                    guard tokens.count == list.count else { return nil }
                    for (word, token) in zip(list, tokens) { known[word] = token }
                    return tokens
                },
                held: { variants throws(IndexError) in
                    let queries = variants.compactMap { variant in token(variant).map { (variant, TSQuery.quote($0)) } }
                    let rows = try connection.execute("""
                        SELECT q FROM unnest($1::text[]) q WHERE EXISTS (SELECT 1 FROM docent_files WHERE fts @@ q::tsquery)
                        """, [.text(Self.arrayLiteral(queries.map(\.1)))])
                    let held = Set((0..<rows.count).compactMap { rows.string($0, 0) })
                    return queries.filter { held.contains($0.1) }.map(\.0)
                },
                files: { word, limit throws(IndexError) in
                    guard let token = token(word) else { return 0 }
                    guard let limit else {
                        return Int(try connection.execute("SELECT count(*) FROM docent_files WHERE fts @@ $1::tsquery",
                                                          [.text(TSQuery.quote(token))]).int(0, 0))
                    }
                    return Int(try connection.execute("""
                        SELECT count(*) FROM (SELECT 1 FROM docent_files WHERE fts @@ $1::tsquery LIMIT $2) AS held
                        """, [.text(TSQuery.quote(token)), .int(Int64(limit))]).int(0, 0))
                })
        }
    }
}
