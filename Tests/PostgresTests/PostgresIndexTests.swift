import Foundation
import Index
import Testing
import TestSupport
@testable import PostgresIndex

/// The query language in tsquery terms, without a server.
@Suite("PostgreSQL: the query language as tsquery")
struct TSQueryTests {
    @Test("Each form of the query language becomes its tsquery: the SQLite index's tokens, each quoted", arguments: [
        ("migration", "'migrat'"),
        ("\"free software\"", "('free' <-> 'softwar')"),
        ("licen*", "'licen':*"),
        ("tea OR coffee", "('tea' | 'coffe')"),
        ("tea -coffee", "('tea' & !'coffe')"),
        ("title:plan", "'plan':B"),
        ("title:\"big plans\"", "('big':B <-> 'plan':B)"),
        ("os.path.join", "('os' <-> 'path' <-> 'join')"),
        ("os.pa*", "('os' <-> 'pa':*)"),
        ("it's", "('it' <-> 's')"),
        ("Naïve", "'naiv'"),
        ("...", "('nothing' & !'nothing')"),
        ("文", "'文':*"),
        ("東京タワー", "('東京' <-> '京タ' <-> 'タワ' <-> 'ワー')"),
    ])
    func translation(query: String, expected: String) throws {
        let parsed = try SearchQuery.parse(query)
        #expect(TSQuery.text(try #require(parsed.match), words: try TextWords()) == expected)
    }

    @Test("What a row's ranking vector holds when it scores: any word of an OR, two of an AND's words, the query itself for two", arguments: [
        ("migration", "'migrat'", true),
        ("licen* OR tea", "'licen':* | 'tea'", true),
        ("memory allocation", "('alloc' & 'memori')", true),
        ("memory alloc*", "('alloc':* & 'memori')", true),
        ("red green blue", "('blue' & 'green') | ('blue' & 'red') | ('green' & 'red')", false),
        ("memory memory", "'memori'", true),
        // A word asked for whole and as a prefix is one item to ts_rank: any word, tested.
        ("memory memori*", "'memori' | 'memori':*", false),
        // A phrase ranks as AND does: two of its words, tested against the full vector.
        ("\"free software\"", "('free' & 'softwar')", false),
        ("\"free software foundation\"", "('foundat' & 'free') | ('foundat' & 'softwar') | ('free' & 'softwar')", false),
        ("\"free software\" licen*", "('free' & 'licen':*) | ('free' & 'softwar') | ('licen':* & 'softwar')", false),
        ("\"free free\"", "'free'", false),
        ("(tea OR coffee) milk", "'coffe' | 'milk' | 'tea'", false),
        ("title:plan budget", "'budget' | 'plan'", false),
    ])
    func scored(query: String, expected: String, impliesMatch: Bool) throws {
        let match = try #require(try SearchQuery.parse(query).match)
        let scored = try #require(TSQuery.scored(match, words: try TextWords()))
        #expect(scored.query == expected)
        #expect(scored.impliesMatch == impliesMatch)
    }

    @Test("Globs become anchored regular expressions; array literals and addresses are escaped")
    func escaping() {
        #expect(TSQuery.regex(ofGlob: "readme*") == "^readme.*$")
        #expect(TSQuery.regex(ofGlob: "a?.(b)[ch]") == "^a.\\.\\(b\\)[ch]$")
        #expect(PostgresIndex.arrayLiteral(["a\"b", "c\\d", "e,f"]) == "{\"a\\\"b\",\"c\\\\d\",\"e,f\"}")
        #expect(Connection.redacted("postgresql://me:secret@db.example/docent") == "postgresql://me:%E2%80%A6@db.example/docent")
        #expect(!Connection.redacted("host=db password=secret dbname=docent").contains("secret"))
    }
}

/// The store against a real server (Debian's PostgreSQL, started in a temporary directory).
@Suite("PostgreSQL: the store against a real server", .serialized)
struct PostgresStoreTests {
    let server: PostgresServer
    let state: TemporaryDirectory

    init() throws {
        server = try PostgresServer()
        try server.createDatabase()
        state = try TemporaryDirectory()
    }

    func store(host: String = "here") throws -> PostgresIndex {
        try PostgresIndex(address: server.address(), host: host, stateDirectory: state.path, reconnectWindow: 5)
    }

    func file(_ path: String, text: String, title: String? = nil) -> IndexedFile {
        IndexedFile(path: Array(path.utf8), device: 1, inode: Int64(path.hashValue & 0xFFFF), size: Int64(text.utf8.count), modified: 1,
                    changed: 1, contentType: "public.plain-text", title: title, text: text)
    }

    @Test("Hostile texts and names: NUL characters, a name that is not UTF-8, a text too large for one tsvector")
    func hostileRows() throws {
        let index = try store()
        // 60,000 distinct words 15 times: with their positions over tsvector's megabyte, the
        // words alone not — all are kept, without positions.
        let long = (0..<15).map { _ in (0..<60_000).map { "w\($0)" }.joined(separator: " ") }.joined(separator: " ") + " needle"
        // 200,000 distinct words: even without positions over the megabyte — kept as far as they fit.
        let huge = (0..<200_000).map { "h\($0)" }.joined(separator: " ") + " haystack"
        var odd = file("/r/x", text: "odd bytes in the name")
        odd.path = Array("/r/caf".utf8) + [0xE9, 0xFF] + Array(".txt".utf8)
        try index.upsert([file("/r/nul.txt", text: "before\0after nulword"), odd, file("/r/long.txt", text: long), file("/r/huge.txt", text: huge)])
        func paths(_ query: String) throws -> [[UInt8]] {
            try index.search(SearchRequest(match: try SearchQuery.parse(query).match, limit: 10)).map(\.path)
        }
        #expect(try paths("nulword") == [Array("/r/nul.txt".utf8)])
        #expect(try paths("odd") == [odd.path], "a path's bytes come back exactly")
        #expect(try paths("needle") == [Array("/r/long.txt".utf8)])
        #expect(try paths("w59999") == [Array("/r/long.txt".utf8)])
        #expect(try paths("h0") == [Array("/r/huge.txt".utf8)])
        #expect(try paths("haystack").isEmpty, "past a megabyte of distinct words, the rest of a text is not searchable")
        #expect(try index.signatures(in: Array("/r".utf8)).count == 4)
        #expect(try index.storedText(id: try #require(try index.search(SearchRequest(match: .term("needle"), limit: 1)).first).id, limit: 3) == "w0 ")
    }

    @Test("Totals, pages and orders as the SQLite index gives them: every match counted, pages that cover them once")
    func pagesAndOrders() throws {
        let index = try store()
        try index.upsert((1...25).map { i in
            var row = file("/p/\(String(format: "%02d", (i * 7) % 25)).txt", text: "pebble " + String(repeating: "pebble ", count: i % 7) + String(repeating: "x", count: i * 10))
            (row.inode, row.modified) = (Int64(i), Int64(1_000 + (i * 11) % 25))
            return row
        })
        func search(_ order: SearchOrder = .relevance, offset: Int = 0, limit: Int = 10) throws -> [SearchHit] {
            var request = SearchRequest(match: .term("pebble"), limit: limit)
            (request.order, request.offset) = (order, offset)
            return try index.search(request)
        }
        #expect(try index.count(SearchRequest(match: .term("pebble"))) == 25)
        #expect(try index.count(SearchRequest(match: try SearchQuery.parse("pebble -xxxxxxxxxx").match)) == 24, "the file whose x-run is that word is left out")
        let all = try search(limit: 25).map(\.id)
        #expect(try (0..<3).flatMap { try search(offset: $0 * 10).map(\.id) } == all)
        let byName = try search(.name, limit: 25).map(\.displayPath)
        #expect(byName == byName.sorted() && byName.count == 25)
        #expect(try search(.name, offset: 20, limit: 10).map(\.displayPath) == Array(byName[20...]))
        let bySize = try search(.size, limit: 25).map { try #require(try index.file(at: $0.path)).size }
        #expect(bySize == bySize.sorted(by: >))
    }

    @Test("Names alone: the newest files a glob matches, chosen from the folded name's index without reading the others' rows")
    func namesAlone() async throws {
        let index = try store()
        // Names that match `readme*` folded and not, other types, every file a different age.
        let names = ["README", "readme.md", "ReadMe.txt", "README-old", "notes.txt", "xREADME", "read.me", "Readme"]
        try index.upsert((0..<96).map { i in
            var row = file("/n/\(i / 8)/\(names[i % 8])", text: "words \(i)")
            (row.inode, row.modified) = (Int64(i + 1), Int64(1_000 + (i * 37) % 96))
            if i % 3 == 0 { row.contentType = "net.daringfireball.markdown" }
            return row
        })
        func expected(_ filter: String, order: String, limit: Int, offset: Int = 0) throws -> [String] {
            try server.psql("""
                SELECT convert_from(path, 'UTF8') FROM docent_files WHERE lower(name) LIKE 'readme%' \(filter)
                ORDER BY \(order) LIMIT \(limit) OFFSET \(offset)
                """).split(separator: "\n").map(String.init)
        }
        for limit in [1, 5, 50] {
            for (order, sql) in [(SearchOrder.relevance, "modified DESC"), (.modified, "modified DESC, id DESC"), (.name, "lower(name), path")] {
                var request = SearchRequest(match: nil, limit: limit)
                (request.nameGlobs, request.order) = (["readme*"], order)
                #expect(try index.search(request).map(\.displayPath) == expected("", order: sql, limit: limit), "\(order), limit \(limit)")
                request.contentTypes = ["net.daringfireball.markdown"]
                #expect(try index.search(request).map(\.displayPath) == expected("AND content_type = 'net.daringfireball.markdown'", order: sql, limit: limit))
            }
        }
        var page = SearchRequest(match: nil, limit: 5)
        (page.nameGlobs, page.offset) = (["readme*"], 10)
        #expect(try index.search(page).map(\.displayPath) == expected("", order: "modified DESC", limit: 5, offset: 10))
        // The newest are chosen in the index alone (once the table is vacuumed and analyzed, as
        // autovacuum does): a search reads the rows of the five it keeps, not of the 60 names
        // that match — among 3,000 other files, where the planner reads no table of 96 rows
        // whole. A backend's counters reach the statistics before it leaves pg_stat_activity.
        try index.upsert((0..<3_000).map { i in
            var row = file("/o/\(i)/notes-\(i).txt", text: "other \(i)")
            (row.inode, row.modified) = (Int64(10_000 + i), Int64(500 + i))
            return row
        })
        try index.close()
        _ = try server.psql("VACUUM ANALYZE docent_files")
        func othersGone() async throws {
            let deadline = ContinuousClock.now + .seconds(20 * deadlineFactor)
            while try server.psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()") != "0" {
                guard ContinuousClock.now < deadline else { throw PostgresServerError("a client backend stayed") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await othersGone()
        _ = try server.psql("SELECT pg_stat_reset()")
        let searching = try store()
        var five = SearchRequest(match: nil, limit: 5)
        five.nameGlobs = ["readme*"]
        #expect(try searching.search(five).count == 5)
        try searching.close()
        try await othersGone()
        let fetched = try #require(Int(try server.psql("SELECT idx_tup_fetch + seq_tup_read FROM pg_stat_user_tables WHERE relname = 'docent_files'")))
        #expect(fetched <= 10, "rows read: \(fetched)")
    }

    @Test("The vectors Docent sends are the server's own form: sorted, unique, weighed by field, the index's tokens at their positions")
    func vectorsMadeByDocent() throws {
        let index = try store()
        let mixed = "Running naïve 東京タワー report.pdf before\0after getHTTPResponseCode running"
        // Over 256 uses of one word and past position 16,383: PostgreSQL's limits, kept as to_tsvector keeps them.
        let repeated = String(repeating: "again ", count: 20_000) + "last"
        // A word and a CJK run across the 1,024th character, where `rank_fts` stops.
        let straddling = String(repeating: "a ", count: 509) + "straddlingword more", cjk = String(repeating: "b ", count: 510) + "東京タワー"
        try index.upsert([file("/w/Mixed.txt", text: mixed, title: "The Title"), file("/w/repeated.txt", text: repeated),
                          file("/w/empty.txt", text: ""), file("/w/straddling.txt", text: straddling), file("/w/cjk.txt", text: cjk)])
        // `rank_fts` holds no word `fts` does not (a search's ranked tier relies on it).
        #expect(try server.psql("""
            SELECT count(*) FROM docent_files f
            WHERE EXISTS (SELECT 1 FROM unnest(tsvector_to_array(f.rank_fts)) w WHERE w != ALL(tsvector_to_array(f.fts)))
            """) == "0")
        let row = try server.psql("SELECT fts::text FROM docent_files WHERE name = 'Mixed.txt'")
        // The name (A), title (B), the folders' names, text and identifier parts (D) numbered on; a CJK run as bigrams, its
        // last character also alone at the last bigram's position; the NUL a separator; no stop words.
        #expect(row == "'after':15 'befor':14 'code':21 'get':18 'gethttpresponsecod':16 'http':19 'mix':1A 'naiv':7 'pdf':13 'report':12 'respons':20 'run':6,17 'the':3B 'titl':4B 'txt':2A 'w':5 'タワ':10 'ワー':11 'ー':11 '京タ':9 '東京':8",
                "\(row)")
        // Every stored vector is canonical: read back through the server's text form, it is unchanged.
        #expect(try server.psql("SELECT count(*) FILTER (WHERE fts != fts::text::tsvector OR rank_fts != rank_fts::text::tsvector), count(*) FROM docent_files") == "0|5")
        #expect(try server.psql("""
            SELECT array_length(positions, 1), positions[256] FROM unnest((SELECT fts FROM docent_files WHERE name = 'repeated.txt')) WHERE lexeme = 'again'
            """) == "256|259")
        #expect(try server.psql("SELECT positions FROM unnest((SELECT fts FROM docent_files WHERE name = 'repeated.txt')) WHERE lexeme = 'last'") == "{16383}")
        #expect(try index.search(SearchRequest(match: .phrase(["get", "HTTP"]), limit: 5)).isEmpty == false, "identifier parts are words")
        #expect(try server.psql("SELECT rank_fts::text FROM docent_files WHERE name = 'empty.txt'") == "'empti':1A 'txt':2A 'w':3")
        // A long text's start kept apart for snippets; a short one's not.
        #expect(try server.psql("SELECT name, coalesce(length(head), 0) FROM docent_files WHERE name IN ('Mixed.txt', 'empty.txt', 'repeated.txt') ORDER BY name")
                == "Mixed.txt|0\nempty.txt|0\nrepeated.txt|32768")
    }

    @Test("Searches give the order of ranking every match: the ranked tier, the unranked tier, exact phrases and negations tested late")
    func rankingTiers() throws {
        let index = try store()
        // Words at the start (ranked: the first kilobyte) or past it (unranked), in names and
        // titles too; every file a different age, so the order has no ties.
        let vocabulary = ["alpha", "beta", "gamma", "delta", "free", "software", "foundation"]
        var generator = SystemRandomNumberGenerator()
        var files: [IndexedFile] = []
        for i in 0..<80 {
            let early = (0..<3).map { _ in vocabulary.randomElement(using: &generator)! }.joined(separator: " ")
            let late = (0..<6).map { _ in vocabulary.randomElement(using: &generator)! }.joined(separator: " ")
            let text = early + " " + String(repeating: "filler ", count: Int.random(in: 0...300, using: &generator)) + late
            var row = file("/t/\(i)-\(vocabulary[i % vocabulary.count]).txt", text: text, title: i % 5 == 0 ? "gamma notes" : nil)
            row.modified = Int64(1_000 + i * 7 % 80)
            files.append(row)
        }
        try index.upsert(files)
        let words = try TextWords()
        for query in ["alpha", "gamma beta", "\"free software\"", "\"software foundation\" delta", "alp*", "alpha OR delta",
                      "beta -gamma", "title:gamma alpha", "\"beta alpha\" -delta", "filler", "alpha beta gamma", "alp* gamma",
                      "gamma alpha -beta", "alpha alpha", "alpha alpha*", "alpha alp*", "beta gamma delta free", "(alpha OR beta) gamma",
                      "\"alpha beta gamma\"", "\"beta beta\"", "\"gamma delta\" free", "\"free software\" foundation -alpha"] {
            let match = try #require(try SearchQuery.parse(query).match)
            for limit in [3, 20, 100] {
                var request = SearchRequest(match: match, limit: limit)
                request.refined = false  // the store's own order, which this test checks
                let found = try index.search(request).map(\.displayPath)
                // Every match ranked by what it must hold (a negation left out), a score under
                // `unscored` as none, then by recency.
                var positive = match
                while case .not(let kept, _) = positive { positive = kept }
                let (all, ranked) = (TSQuery.text(match, words: words), TSQuery.text(positive, words: words))
                let score = "ts_rank('\(PostgresIndex.rankWeights)', rank_fts, '\(ranked.replacingOccurrences(of: "'", with: "''"))'::tsquery, 1)"
                let expected = try server.psql("""
                    SELECT convert_from(path, 'UTF8') FROM docent_files WHERE fts @@ '\(all.replacingOccurrences(of: "'", with: "''"))'::tsquery
                    ORDER BY CASE WHEN \(score) > \(PostgresIndex.unscored) THEN \(score) ELSE 0 END DESC, modified DESC LIMIT \(limit)
                    """).split(separator: "\n").map(String.init)
                #expect(found == expected, "\(query), limit \(limit)")
            }
        }
    }

    @Test("Rows with the words in a name or title ranked first: short vectors that outscore them still come between")
    func namedRowsFirst() throws {
        let index = try store()
        // 12 files titled with the word and 12 with it in their metadata, each with more than a
        // kilobyte of other words (long ranking vectors: ts_rank divides by the log of their
        // length), and rows holding it elsewhere: in a short file's metadata (C, few words: it
        // outscores them all), in the metadata of a file of seven words (above the titled ones,
        // and longer than the cut for texts), as the whole text of a file of two words (D: above
        // the titled ones too) and of three (D), and in long texts (D).
        let filler = (0..<400).map { "w\($0 % 97)" }.joined(separator: " ")
        var files = (0..<24).map { i in
            var row = file("/n/t-\(i).txt", text: filler + " orchid", title: i < 12 ? "orchid notes" : nil)
            if i >= 12 { row.metadata = "orchid notes" }
            row.modified = Int64(100 + i)
            return row
        }
        var tagged = file("/n/m.txt", text: "")
        tagged.metadata = "orchid"
        tagged.modified = 1
        var described = file("/n/d.txt", text: "wa wb wc")
        described.metadata = "orchid"
        described.modified = 4
        var bare = file("/b", text: "orchid")  // two words: no folder's
        bare.modified = 3
        var short = file("/n/s.txt", text: "orchid")
        short.modified = 2
        // A word both a folder's name and the title: the title's place comes first.
        files.append(file("/notes/x.txt", text: "", title: "notes"))
        files += [tagged, described, bare, short] + (0..<10).map { i in file("/n/long-\(i).txt", text: "orchid " + filler) }
        try index.upsert(files)
        func count(_ condition: String) throws -> String {
            try server.psql("SELECT count(*) FROM docent_files WHERE \(condition)".replacingOccurrences(of: "f.", with: ""))
        }
        #expect(try count(PostgresIndex.named("'orchid'")) == "12")
        #expect(try count(PostgresIndex.described("'orchid'")) == "14")
        // Each word's places weigh less and less (A, B, C, D: in letters, ascending), as the
        // bounds need.
        #expect(try server.psql("""
            SELECT count(*) FROM docent_files f, unnest(f.rank_fts) u
            WHERE u.weights::text[] <> (SELECT array_agg(w::text ORDER BY w::text) FROM unnest(u.weights) w)
            """) == "0")
        #expect(try server.psql("SELECT count(*) FROM docent_files f, unnest(f.rank_fts) u WHERE cardinality(u.weights) > 1") != "0")
        for query in ["orchid", "orchid OR w3", "orchid -w5"] {
            let match = try #require(try SearchQuery.parse(query).match)
            var positive = match
            while case .not(let kept, _) = positive { positive = kept }
            let words = try TextWords()
            let score = "ts_rank('\(PostgresIndex.rankWeights)', rank_fts, '\(TSQuery.text(positive, words: words).replacingOccurrences(of: "'", with: "''"))'::tsquery, 1)"
            for limit in [5, 20] {
                var request = SearchRequest(match: match, limit: limit)
                request.refined = false  // the store's own order, which this test checks
                let found = try index.search(request).map(\.displayPath)
                let expected = try server.psql("""
                    SELECT convert_from(path, 'UTF8') FROM docent_files
                    WHERE fts @@ '\(TSQuery.text(match, words: words).replacingOccurrences(of: "'", with: "''"))'::tsquery
                    ORDER BY CASE WHEN \(score) > \(PostgresIndex.unscored) THEN \(score) ELSE 0 END DESC, modified DESC LIMIT \(limit)
                    """).split(separator: "\n").map(String.init)
                #expect(found == expected, "\(query), limit \(limit)")
                // At 5, the named rows fill the limit, and these three are found only as short.
                if query == "orchid" { #expect(found.prefix(3) == ["/n/m.txt", "/n/d.txt", "/b"], "the short rows outscore the titled ones") }
            }
        }
        // The bounds: a vector holding the words in its text alone scores under D's weight
        // (0.1), one with them in headings or metadata under C's (0.2), over log2(1 + its
        // length); past the cut it cannot reach the score it was cut for.
        for (most, bound) in [(PostgresIndex.textBound, 0.1), (PostgresIndex.describedBound, 0.2)] {
            for score in [0.05, 0.1, 0.137, 0.3] {
                let cut = try #require(PostgresIndex.namedFirstCut(below: score, most: most))
                #expect(bound / log2(Double(cut) + 1) < score)
                #expect(cut == 1 || bound / log2(Double(cut - 1) + 1) >= score * 0.99)
            }
        }
        #expect(PostgresIndex.namedFirstCut(below: 0.01, most: PostgresIndex.textBound) == nil, "too many short rows to rank: all matches are")
    }

    @Test("Did you mean: the same suggestions as the SQLite index for the same rows, misspellings held by few files included")
    func suggestionsAsSQLite() throws {
        let index = try store()
        let directory = try TemporaryDirectory()
        let local = try FileIndex(path: directory.path + "/index.sqlite")
        var rows = [
            file("/r/a.txt", text: "Please receive the parcel at the door."),
            file("/r/b.txt", text: "We received many letters about the information desk."),
            file("/r/c.txt", text: "The separate accommodation was necessary."),
        ]
        for i in 0..<1200 { rows.append(file("/r/filler\(i).txt", text: "filler text number \(i) about the weather")) }
        rows.append(file("/r/typo.txt", text: "the letter says seperate"))
        for i in 0..<12 { rows.append(file("/r/rooms\(i).txt", text: "separate rooms \(i)")) }
        for (i, _) in rows.enumerated() { rows[i].inode = Int64(i + 1) }
        try index.upsert(rows)
        try local.upsert(rows)
        for query in ["recieve", "parcle", "informaton", "necissary accomodation", "weathet", "seperate", "receive", "xyzzyq", "\"recieve parcle\""] {
            let match = try SearchQuery.parse(query).match
            let expected = try local.suggestions(for: match)
            #expect(!expected.isEmpty || ["receive", "xyzzyq"].contains(query), "\(query)")
            #expect(try index.suggestions(for: match) == expected, "\(query)")
        }
    }

    @Test("A searching store's connections start with its settings (no SET per search); an address with options of its own keeps them")
    func searchingSettings() throws {
        let plain = try store()
        let searching = try PostgresIndex(address: server.address(), host: "here", stateDirectory: state.path, reconnectWindow: 5, searching: true)
        func seqscan(_ index: PostgresIndex) throws -> String? { try index.run { connection throws(IndexError) in try connection.execute("SHOW enable_seqscan") }.string(0, 0) }
        #expect(try seqscan(plain) == "on")
        #expect(try seqscan(searching) == "off")
        try plain.upsert([file("/s/a.txt", text: "lantern light")])
        #expect(try searching.search(SearchRequest(match: .term("lantern"), limit: 5)).map(\.displayPath) == ["/s/a.txt"])
        #expect(try seqscan(searching) == "off", "not reset after a search")
        #expect(try seqscan(plain) == "on")
        _ = try plain.search(SearchRequest(match: .term("lantern"), limit: 5))
        #expect(try seqscan(plain) == "on", "a SET for the search, then RESET")
        let own = try PostgresIndex(address: server.address() + "?options=-c%20work_mem%3D8MB", host: "here", stateDirectory: state.path,
                                    reconnectWindow: 5, searching: true)
        #expect(try own.run { connection throws(IndexError) in try connection.execute("SHOW work_mem") }.string(0, 0) == "8MB")
        #expect(try own.search(SearchRequest(match: .term("lantern"), limit: 5)).count == 1)
    }

    @Test("Nearness as SQLite's docent_proximity says it: side by side 1, 61 apart 61, in two fields far; a prefix is a word; one word or OR none")
    func proximities() throws {
        let index = try store()
        let filler = (0..<60).map { "w\($0)" }
        try index.upsert([file("/p/apart.txt", text: (["wooden"] + filler + ["ladder"]).joined(separator: " ")),
                          file("/p/together.txt", text: (["wooden", "ladder"] + filler).joined(separator: " ")),
                          file("/p/name wooden.txt", text: "ladder " + filler.joined(separator: " "))])
        let rows = try index.search(SearchRequest(match: .term("ladder"), limit: 10))
        let id = Dictionary(uniqueKeysWithValues: rows.map { ($0.displayPath, $0.id) })
        let near = try index.proximities(ids: rows.map(\.id), match: .and([.term("wooden"), .term("ladder")]))
        #expect(near[id["/p/together.txt"]!] == 1 && near[id["/p/apart.txt"]!] == 61, "\(near)")
        #expect(near[id["/p/name wooden.txt"]!] == Double(PostgresIndex.far), "the name's word and the text's: two fields")
        let prefixed = try index.proximities(ids: rows.map(\.id), match: .and([.prefix("wood"), .term("ladders")]))
        #expect(prefixed[id["/p/together.txt"]!] == 1 && prefixed[id["/p/apart.txt"]!] == 61, "\(prefixed)")
        #expect(try index.proximities(ids: rows.map(\.id), match: .term("ladder")).isEmpty)
        #expect(try index.proximities(ids: rows.map(\.id), match: .or([.term("wooden"), .term("ladder")])).isEmpty)
        // The search ranks the two the text alone cannot tell apart by it.
        let order = try index.search(SearchRequest(match: .and([.term("wooden"), .term("ladder")]), limit: 5)).map(\.displayPath)
        #expect(try #require(order.firstIndex(of: "/p/together.txt")) < (try #require(order.firstIndex(of: "/p/apart.txt"))), "\(order)")
    }

    @Test("A database made by the Docent before migration v3 (the server's words) gets Docent's words on first open")
    func wordsMadeAgain() throws {
        // The database as that Docent left it: migrations v1 and v2 as recorded, a row whose
        // vectors the server made with its own functions (Snowball stems, no CJK bigrams).
        let connection = try Connection(address: server.address())
        try connection.execute("CREATE TABLE docent_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        for migration in PostgresIndex.migrations.prefix(2) {
            for statement in migration.sql { try connection.execute(statement) }
            if migration.identifier == "v1" { try connection.execute(PostgresIndex.textSearchMapping(unaccent: false)) }
            try connection.execute("INSERT INTO docent_migrations (identifier) VALUES ($1)", [.text(migration.identifier)])
        }
        try connection.execute("""
            INSERT INTO docent_files (host, path, parent, name, device, inode, size, modified, changed, content_type, title, indexed_at, body,
                                      fts, rank_fts)
            VALUES ('here', '\\x2f6d2f612e747874', '\\x2f6d', 'a.txt', 1, 1, 10, 1, 1, 'public.plain-text', 'Plans', 0,
                    'Migrations running 東京タワー', docent_vector('a.txt', 'Plans', 'Migrations running 東京タワー', NULL, ''),
                    docent_rank_vector('a.txt', 'Plans', 'Migrations running 東京タワー', NULL))
            """)
        #expect(try server.psql("SELECT fts @@ '京タ'::tsquery FROM docent_files") == "f", "the server's parser kept the CJK run whole")
        let index = try store()
        #expect(try server.psql("SELECT identifier FROM docent_migrations ORDER BY identifier") == PostgresIndex.migrations.map(\.identifier).joined(separator: "\n"))
        #expect(try server.psql("SELECT count(*) FROM pg_proc WHERE proname LIKE 'docent\\_%'") == "0", "the server's functions are gone")
        #expect(try index.search(SearchRequest(match: .term("migration"), limit: 5)).map(\.displayPath) == ["/m/a.txt"])
        #expect(try index.search(SearchRequest(match: .columns(["title"], .term("plan")), limit: 5)).count == 1)
        #expect(try index.search(SearchRequest(match: .term("京タ"), limit: 5)).count == 1, "a CJK bigram inside a run")
        #expect(try index.search(SearchRequest(match: .and([.term("m"), .term("migration")]), limit: 5)).count == 1, "its folder's name (v5)")
    }

    @Test("Each host owns its rows: another's reconcile, removals and moves never touch them; searches see both")
    func hostsOwnTheirRows() throws {
        let here = try store(host: "here"), there = try store(host: "there")
        try here.upsert([file("/shared/a.txt", text: "apple here"), file("/shared/b.txt", text: "banana here")])
        try there.upsert([file("/shared/a.txt", text: "apple there")])
        #expect(try here.count() == 2 && there.count() == 1)
        #expect(try here.removeTree(Array("/shared".utf8)) == 2)
        #expect(try there.count() == 1)
        try there.moveTree(from: Array("/shared".utf8), to: Array("/moved".utf8))
        let hits = try here.search(SearchRequest(match: .term("apple"), limit: 10))
        #expect(hits.map(\.host) == ["there"] && hits.map(\.displayPath) == ["/moved/a.txt"])
        try there.move(from: Array("/moved/a.txt".utf8), to: Array("/moved/avocado.txt".utf8))
        #expect(try here.search(SearchRequest(match: .term("avocado"), limit: 10)).map(\.displayPath) == ["/moved/avocado.txt"],
                "a renamed file is found by its new name")
        #expect(try here.search(SearchRequest(match: .term("txt"), limit: 10)).count == 1, "the old name's words are gone with it")
        let stats = try there.statistics()
        #expect(stats.hosts == ["there": 1] && stats.files == 1)
    }

    @Test("A database made by a newer Docent is refused, not touched")
    func newerSchema() throws {
        _ = try store()
        _ = try server.psql("INSERT INTO docent_migrations (identifier) VALUES ('v999')")
        #expect {
            _ = try store()
        } throws: { error in
            guard let error = error as? IndexError, case .newerSchema = error else { return false }
            return true
        }
    }

    @Test("Hosts opening a new database at once: one makes the schema, the others wait for it")
    func concurrentMigration() throws {
        let address = server.address(), directory = state.path
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 6) { i in
            do { _ = try PostgresIndex(address: address, host: "h\(i)", stateDirectory: directory) } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try server.psql("SELECT count(*) FROM docent_migrations") == String(PostgresIndex.migrations.count), "each migration once")
    }
}

/// A value behind a lock, for the concurrent test.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
