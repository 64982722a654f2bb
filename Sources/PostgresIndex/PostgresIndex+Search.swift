import Foundation
import Index

/// The query language in PostgreSQL's terms: an `FTSExpression` as `to_tsquery` text, in which
/// every word the user typed is a quoted lexeme (stemmed by the `docent` configuration, never
/// read as tsquery syntax), and the whole a bound parameter, never SQL.
enum TSQuery {
    static func text(_ expression: FTSExpression, weights: String = "") -> String {
        switch expression {
        // A word of punctuation alone matches nothing, as in SQLite.
        case .term(let word) where quote(word) == nil, .prefix(let word) where quote(word) == nil: nothing
        case .phrase(let words) where words.contains(where: { quote($0) == nil }): nothing
        case .term(let word):
            // One Han, Kana or Hangul character: words starting with it (PostgreSQL's parser
            // keeps a run of them whole).
            word.unicodeScalars.count == 1 && word.unicodeScalars.first!.value >= 0x2E80
                ? quote(word)! + ":*" + weights : quote(word)! + (weights.isEmpty ? "" : ":" + weights)
        case .prefix(let word): quote(word)! + ":*" + weights
        case .phrase(let words):
            "(" + words.map { quote($0)! + (weights.isEmpty ? "" : ":" + weights) }.joined(separator: " <-> ") + ")"
        case .and(let parts): "(" + parts.map { text($0, weights: weights) }.joined(separator: " & ") + ")"
        case .or(let parts): "(" + parts.map { text($0, weights: weights) }.joined(separator: " | ") + ")"
        case .not(let positive, let negative): "(" + text(positive, weights: weights) + " & !" + text(negative, weights: weights) + ")"
        case .columns(let names, let inner):
            text(inner, weights: names.map { ["name": "A", "title": "B", "meta": "C", "body": "D", "parts": "D"][$0] ?? "" }.joined())
        }
    }

    /// `word` as a tsquery lexeme: in single quotes, quotes doubled, backslashes escaped; the
    /// characters `docent_words` turns into spaces in texts turned into spaces here too (a
    /// word with some is then a phrase of its parts, as in SQLite).
    static func quote(_ word: String) -> String? {
        let split = String(word.map { joining.contains($0) ? " " : $0 }).trimmingCharacters(in: .whitespaces)
        guard split.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        return "'" + split.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A query that no text matches (a word and its negation).
    static let nothing = "('nothing' & !'nothing')"

    /// What `docent_words` replaces (keep the two equal).
    static let joining: Set<Character> = [".", "/", "@", ":", "~", "+", "\\", "="]

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

extension PostgresIndex {
    /// Weights of the name (A), title (B), metadata (C) and text (D) for `ts_rank`, in
    /// PostgreSQL's order D, C, B, A: as SQLite's BM25 weights 10, 5, 2, 1 (scaled).
    static let rankWeights = "{0.1, 0.2, 0.5, 1.0}"

    /// The best `request.limit` hits of every host, by `ts_rank` over the name, title,
    /// metadata and first 1 KB of text (`rank_fts`; normalized by its length), then recency;
    /// snippets by `ts_headline` for the rows kept.
    public func search(_ request: SearchRequest) throws(IndexError) -> [SearchHit] {
        var conditions: [String] = []
        var parameters: [SQLValue] = []
        func bind(_ value: SQLValue) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        var query: String?
        if let match = request.match {
            query = bind(.text(TSQuery.text(match)))
            conditions.append("f.fts @@ to_tsquery('docent', \(query!))")
        }
        if let types = request.contentTypes {
            guard !types.isEmpty else { return [] }
            conditions.append("f.content_type = ANY(\(bind(.text(Self.arrayLiteral(types.sorted()))))::text[])")
        }
        if let excluded = request.excluded {
            conditions.append("NOT f.fts @@ to_tsquery('docent', \(bind(.text(TSQuery.text(excluded)))))")
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
        let ranked = query != nil && request.ranked
        let score = ranked ? "ts_rank('\(Self.rankWeights)', f.rank_fts, to_tsquery('docent', \(query!)), 1)" : "0.0"
        let sql = """
            SELECT f.id, f.host, f.path, f.content_type, f.title, f.modified, \(score) AS score
            FROM docent_files f
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY \(ranked ? "score DESC, " : "")f.modified DESC
            LIMIT \(bind(.int(Int64(request.limit))))
            """
        return try run { connection throws(IndexError) in
            // The planner takes a common word's matches (a third of the files) as cheaper to find
            // by reading the whole table, not counting that testing each row means reading its
            // vector out of TOAST: 160 ms for `python` against a few ms through the GIN index.
            if query != nil { try connection.execute("SET enable_seqscan = off") }
            defer { if query != nil { _ = try? connection.execute("RESET enable_seqscan") } }
            let rows = try connection.execute(sql, parameters)
            var hits = (0..<rows.count).map { row in
                let host = rows.string(row, 1) ?? ""
                return SearchHit(id: rows.int(row, 0), path: rows.bytes(row, 2), contentType: rows.string(row, 3) ?? "",
                                 title: rows.string(row, 4), score: rows.double(row, 6) ?? 0, snippet: "",
                                 modified: rows.int(row, 5), host: host == self.host ? nil : host)
            }
            guard request.snippets, !hits.isEmpty else { return hits }
            let snippets = try Self.snippets(connection, ids: hits.map(\.id), match: request.match)
            for i in hits.indices { hits[i].snippet = snippets[hits[i].id] ?? "" }
            return hits
        }
    }

    /// How much of a text `ts_headline` reads for a snippet: it parses all it is given, and a
    /// whole large text cost more than the search. A match past this shows the text's start.
    static let snippetWindow = 32_768

    /// Each row's snippet: the text around its best match (`ts_headline`, the match between
    /// `SearchHit.matchStart` and `matchEnd`), or the text's start for filters alone.
    private static func snippets(_ connection: Connection, ids: [Int64], match: FTSExpression?) throws(IndexError) -> [Int64: String] {
        let idList = "{" + ids.map(String.init).joined(separator: ",") + "}"
        let rows: Connection.Result
        if let match {
            rows = try connection.execute("""
                SELECT id, ts_headline('docent', left(body, \(snippetWindow)), to_tsquery('docent', $2),
                                       'StartSel=' || chr(2) || ', StopSel=' || chr(3) || ', MaxWords=24, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "')
                FROM docent_files WHERE id = ANY($1::bigint[])
                """, [.text(idList), .text(TSQuery.text(match))])
        } else {
            rows = try connection.execute("SELECT id, left(body, 120) FROM docent_files WHERE id = ANY($1::bigint[])", [.text(idList)])
        }
        var out: [Int64: String] = [:]
        for row in 0..<rows.count {
            out[rows.int(row, 0)] = (rows.string(row, 1) ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
        }
        return out
    }

    /// Spelling suggestions are SQLite's alone for now (they look words up in FTS5's own
    /// structures): none here.
    public func suggestions(for match: FTSExpression?) throws(IndexError) -> [SpellingSuggestion] { [] }

    public func statistics() throws(IndexError) -> IndexStatistics {
        var statistics = IndexStatistics()
        let roots = try roots()
        try run { connection throws(IndexError) in
            statistics.bytesOnDisk = try connection.execute("""
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                WHERE c.relkind = 'r' AND c.relname LIKE 'docent\\_%'
                """).int(0, 0)
            var rows = try connection.execute("SELECT content_type, count(*) FROM docent_files GROUP BY content_type")
            for row in 0..<rows.count {
                statistics.contentTypes[rows.string(row, 0) ?? ""] = Int(rows.int(row, 1))
                statistics.files += Int(rows.int(row, 1))
            }
            rows = try connection.execute("SELECT error_kind, count(*) FROM docent_files WHERE error_kind IS NOT NULL GROUP BY error_kind")
            for row in 0..<rows.count { statistics.errorKinds[rows.string(row, 0) ?? ""] = Int(rows.int(row, 1)) }
            rows = try connection.execute("SELECT host, count(*) FROM docent_files GROUP BY host ORDER BY host")
            for row in 0..<rows.count { statistics.hosts[rows.string(row, 0) ?? ""] = Int(rows.int(row, 1)) }
            for root in roots {
                let (lower, upper) = FileIndex.subtreeRange(root.path)
                let counts = try connection.execute("""
                    SELECT count(*), count(error_kind) FROM docent_files WHERE host = $1 AND path >= $2 AND path < $3
                    """, [.text(host), .bytes(lower), .bytes(upper)])
                statistics.roots.append(RootStatistics(path: root.path, lastIndexed: root.lastIndexed,
                                                       files: Int(counts.int(0, 0)), errors: Int(counts.int(0, 1))))
            }
        }
        return statistics
    }

    static let rowColumns = """
        host, path, device, inode, size, modified, changed, content_type, document_type, title, metadata, evidence,
        error_kind, error_message
        """

    private func file(_ rows: Connection.Result, _ row: Int) -> IndexedFile {
        var file = IndexedFile(path: rows.bytes(row, 1), device: rows.int(row, 2), inode: rows.int(row, 3), size: rows.int(row, 4),
                               modified: rows.int(row, 5), changed: rows.int(row, 6), contentType: rows.string(row, 7) ?? "",
                               documentType: rows.string(row, 8), title: rows.string(row, 9), metadata: rows.string(row, 10),
                               evidence: rows.string(row, 11), errorKind: rows.string(row, 12), errorMessage: rows.string(row, 13))
        let host = rows.string(row, 0) ?? ""
        file.host = host == self.host ? nil : host
        return file
    }

    public func filesWithErrors(limit: Int?) throws(IndexError) -> [IndexedFile] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT \(Self.rowColumns) FROM docent_files WHERE host = $1 AND error_kind IS NOT NULL ORDER BY path LIMIT $2
                """, [.text(host), limit.map { .int(Int64($0)) } ?? .null])
            return (0..<rows.count).map { file(rows, $0) }
        }
    }

    public func file(id: Int64) throws(IndexError) -> IndexedFile? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT \(Self.rowColumns) FROM docent_files WHERE id = $1", [.int(id)])
            return rows.count == 0 ? nil : file(rows, 0)
        }
    }

    public func file(at path: [UInt8]) throws(IndexError) -> IndexedFile? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT \(Self.rowColumns) FROM docent_files WHERE host = $1 AND path = $2",
                                              [.text(host), .bytes(path)])
            return rows.count == 0 ? nil : file(rows, 0)
        }
    }

    public func storedFile(host: String, path: [UInt8], textLimit: Int) throws(IndexError) -> (file: IndexedFile, text: String)? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT \(Self.rowColumns), left(body, $3) FROM docent_files WHERE host = $1 AND path = $2
                """, [.text(host), .bytes(path), .int(Int64(textLimit))])
            return rows.count == 0 ? nil : (file(rows, 0), rows.string(0, 14) ?? "")
        }
    }

    public func storedText(id: Int64, limit: Int) throws(IndexError) -> String? {
        try run { connection throws(IndexError) in
            try connection.execute("SELECT left(body, $2) FROM docent_files WHERE id = $1", [.int(id), .int(Int64(limit))]).string(0, 0)
        }
    }
}
