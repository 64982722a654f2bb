import Foundation
import GRDB
@testable import Index
import Testing
import TestSupport

/// Docent's own FTS5 functions against what they stand in for: `docent_rank` must give
/// bm25()'s scores exactly, `docent_score` BM25's at Docent's parameters, and
/// `docent_snippet`, which counts tokens itself to skip to its window, must land on the same
/// token the tokenizer would, however deep and whatever the text.
@Suite("docent_rank and docent_snippet")
struct SearchFunctionsTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/data/docent/index.sqlite")
    }

    /// Words of many kinds: ASCII, accented, CJK runs, digits, a ligature, joined by ASCII
    /// and non-ASCII separators (dashes, ellipses, curly quotes, bullets, emoji, no-break spaces).
    static let words = ["alpha", "Beta", "gamma42", "naïve", "Crème", "brûlée", "東京都", "ﬁle", "straße", "İstanbul",
                        "x", "I", "über-cool", "C3PO", "٣٤٥", "Ωmega", "résumé", "don't", "e.g.", "foo_bar"]
    static let separators = [" ", " ", " ", "\n", ", ", " — ", "…", " “", "” ", " • ", " 🙂 ", "\u{00A0}", "\t", "; ", "/"]

    /// A deterministic text of `count` words (a linear congruential generator, so every run sees the same text).
    static func text(words count: Int, seed: UInt64) -> String {
        var state = seed
        var out = ""
        out.reserveCapacity(count * 8)
        for _ in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            out += words[Int((state >> 33) % UInt64(words.count))]
            out += separators[Int((state >> 17) % UInt64(separators.count))]
        }
        return out
    }

    @Test("Proximity: docent_proximity says how near the words stand; the search puts the rows whose words stand together first")
    func proximity() throws {
        // The same words, as often, in texts of the same length: together in one, apart in the other.
        let filler = (0..<60).map { "w\($0)" }
        let together = (["wooden", "ladder"] + filler).joined(separator: " ")
        let apart = (["wooden"] + filler + ["ladder"]).joined(separator: " ")
        try index.upsert([file("/p/apart.txt", apart, title: nil, inode: 1, modified: 2),
                          file("/p/together.txt", together, title: nil, inode: 2, modified: 1),
                          file("/p/name wooden.txt", "ladder " + filler.joined(separator: " "), title: nil, inode: 3, modified: 0)])
        func scores(_ query: String) throws -> [String: (Double, Double)] {
            try index.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT files.name AS name, bm25(files_fts, \(FileIndex.weights)) AS plain, docent_proximity(files_fts) AS near
                    FROM files_fts JOIN files ON files.id = files_fts.rowid WHERE files_fts MATCH ?
                    """, arguments: [query]).reduce(into: [String: (Double, Double)]()) { $0[$1["name"]] = ($1["plain"], $1["near"]) }
            }
        }
        let found = try scores("wooden ladder")
        let (a, b) = (try #require(found["apart.txt"]), try #require(found["together.txt"]))
        #expect(abs(a.0 - b.0) < 1e-9, "BM25 alone cannot tell them apart")
        #expect(b.1 == 1 && a.1 == 61, "side by side: 1; 61 tokens apart: 61")
        #expect(found["name wooden.txt"]?.1 == 1000, "words in different columns: far")
        #expect(try scores("wooden").values.allSatisfy { $0.1 == 0 }, "one word: no distance")
        // A phrase a row does not hold (an alternative) leaves its pairs out.
        let either = try scores("wooden AND (ladder OR w5)")
        #expect(either["together.txt"]?.1 == 3.5, "wooden–ladder 1, ladder–w5 6: the mean of both")
        #expect(try scores("wooden AND (w5 OR zzznone)")["together.txt"]?.1 == 7, "w5–zzznone left out: wooden–w5 alone")
        let order = try index.search(SearchRequest(match: .and([.term("wooden"), .term("ladder")]))).map(\.displayPath)
        #expect(order.filter { $0 != "/p/name wooden.txt" } == ["/p/together.txt", "/p/apart.txt"], "\(order)")
        // The factor: a quarter more side by side, about the same far apart.
        #expect(Relevance.factor(path: Array("/x".utf8), title: nil, words: ["a", "b"], distance: 1) == 1.25)
        #expect(abs(Relevance.factor(path: Array("/x".utf8), title: nil, words: ["a", "b"], distance: 61) - (1 + 0.25 / 61)) < 1e-12)
    }

    @Test("Words typed apart match the compound the index holds, where it is a compound and not a name in code")
    func compounds() throws {
        let typed = FTSExpression.and([.term("mount"), .term("File"), .term("system"), .not(.term("x"), .term("y"))])
        #expect(typed.compoundCandidates.map(\.joined) == ["mountfile", "filesystem"])
        #expect(typed.compounded(["filesystem"]) == .and([.term("mount"), .or([.and([.term("File"), .term("system")]), .term("filesystem")]),
                                                          .not(.term("x"), .term("y"))]))
        // Left to right, a word in one pair only; phrases, prefixes and CJK characters are no halves.
        #expect(FTSExpression.and([.term("a1"), .term("bb"), .term("cc"), .term("d")]).compounded(["a1bb", "bbcc", "ccd"])
            == .and([.or([.and([.term("a1"), .term("bb")]), .term("a1bb")]), .term("cc"), .term("d")]))
        #expect(FTSExpression.and([.phrase(["time"]), .prefix("zo"), .term("東")]).compoundCandidates.isEmpty)
        #expect(FTSExpression.or([.term("time"), .term("zone")]).compoundCandidates.isEmpty, "either word: no pair")
        // The rule: in two files at least, and one for every ten with the words apart.
        func rule(compound: Int, apart: Int) -> Bool {
            FTSExpression.isCompound("ab", apart: .and([.term("a"), .term("b")])) { expression, limit in
                min(limit, expression == .term("ab") ? compound : apart)
            }
        }
        #expect(rule(compound: 416, apart: 529) && rule(compound: 958, apart: 7_362) && rule(compound: 2, apart: 20))
        #expect(!rule(compound: 185, apart: 5_269) && !rule(compound: 1, apart: 1) && !rule(compound: 2, apart: 21))

        // In the index: "filesystem" in two pages, "file system" in one; "filetype" in one of many.
        try index.upsert([file("/c/mount.8", "mount attaches the filesystem on a device", title: nil, inode: 1, modified: 1),
                          file("/c/fsck.8", "checks a filesystem", title: nil, inode: 2, modified: 1),
                          file("/c/notes.txt", "the file system is full; mount it elsewhere", title: nil, inode: 3, modified: 1),
                          file("/c/code.c", "int filetype = guess(mount);", title: nil, inode: 4, modified: 1)]
                         + (5...30).map { file("/c/type\($0).txt", "the file type of the mount \($0)", title: nil, inode: Int64($0), modified: 1) })
        let found = try index.search(SearchRequest(match: .and([.term("mount"), .term("file"), .term("system")]), limit: 10)).map(\.displayPath)
        #expect(Set(found) == ["/c/mount.8", "/c/notes.txt"], "\(found)")
        #expect(try index.count(SearchRequest(match: .and([.term("mount"), .term("file"), .term("system")]))) == 2)
        let typeHits = try index.search(SearchRequest(match: .and([.term("mount"), .term("file"), .term("type")]), limit: 50)).map(\.displayPath)
        #expect(!typeHits.contains("/c/code.c"), "filetype: 1 file against 26 with the words apart, a name in code")
    }

    @Test("One document's typeset forms side by side are one hit, the best placed, the others listed; other files and other folders stay apart")
    func renditions() {
        func hit(_ id: Int64, _ path: String, host: String? = nil) -> SearchHit {
            SearchHit(id: id, path: Array(path.utf8), contentType: "x", title: nil, score: 0, snippet: "", modified: 0, host: host)
        }
        let hits = [hit(1, "/d/gnuplot.dvi"), hit(2, "/d/node1.html"), hit(3, "/d/gnuplot.PDF"), hit(4, "/e/gnuplot.pdf"),
                    hit(5, "/d/gnuplot.ps.gz"), hit(6, "/d/gnuplot.pdf", host: "laptop"), hit(7, "/d/gnuplot.txt"), hit(8, "/d/.pdf")]
        let (kept, alsoAs) = Renditions.folded(hits)
        #expect(kept.map(\.id) == [1, 2, 4, 6, 7, 8])
        #expect(alsoAs == [1: ["/d/gnuplot.PDF", "/d/gnuplot.ps.gz"]])
        // A Sphinx page and its source's copy (`_sources/…rst.txt`, older Sphinx `…txt`) are one
        // hit; another page's source, or a text that only lies under `_sources`, stays apart.
        let sphinx = [hit(1, "/h/_sources/library/tarfile.rst.txt"), hit(2, "/h/library/tarfile.html"), hit(3, "/h/library/zipfile.html"),
                      hit(4, "/h/_sources/library/zipfile.txt"), hit(5, "/h/_sources/tarfile.rst.txt"), hit(6, "/h/_sources/notes.py"),
                      hit(7, "/h/library/tarfile.txt")]
        // A LaTeX source beside the PDF typeset from it.
        let (typeset, latex) = Renditions.folded([hit(1, "/t/lineno.pdf"), hit(2, "/t/lnosuppl.tex.gz"), hit(3, "/t/lineno.tex.gz")])
        #expect(typeset.map(\.id) == [1, 2] && latex == [1: ["/t/lineno.tex.gz"]])
        let (pages, sources) = Renditions.folded(sphinx)
        #expect(pages.map(\.id) == [1, 3, 5, 6, 7])
        #expect(sources == [1: ["/h/library/tarfile.html"], 3: ["/h/_sources/library/zipfile.txt"]])
    }

    @Test("A man page's name and section come from its file in a man section's folder; sections 2 and 3 rank below the others; a dotted name is named as the query, or names its module's file")
    func manPages() {
        func folders(_ path: String) -> ArraySlice<ArraySlice<UInt8>> { Array(path.utf8).split(separator: UInt8(ascii: "/"))[...] }
        #expect(Relevance.manPage("mount.8.gz", folders: folders("/usr/share/man/man8"))! == ("mount", "8"))
        #expect(Relevance.manPage("systemd.service.5.xz", folders: folders("/m/man5"))! == ("systemd.service", "5"))
        #expect(Relevance.manPage("SSL_read.3ssl.gz", folders: folders("/m/man3"))! == ("SSL_read", "3ssl"))
        #expect(Relevance.manPage("notes.8.gz", folders: folders("/home/u/manuals")) == nil, "not in a man section's folder")
        #expect(Relevance.manPage("README.gz", folders: folders("/m/man1")) == nil, "no section")
        let command = Relevance.factor(path: Array("/m/man8/mount.8.gz".utf8), title: nil, words: ["mount"])
        let call = Relevance.factor(path: Array("/m/man2/mount.2.gz".utf8), title: nil, words: ["mount"])
        #expect(abs(call / command - Relevance.programmingSectionFactor) < 1e-12 && Relevance.programmingSectionFactor < 1)
        #expect(Relevance.factor(path: Array("/m/man5/unit.service.5.gz".utf8), title: nil, words: ["unit.service"]) == 3)
        #expect(Relevance.factor(path: Array("/doc/library/os.path.html".utf8), title: nil, words: ["os", "path"]) == 3)
        #expect(Relevance.factor(path: Array("/doc/library/os.html".utf8), title: nil, words: ["os", "path"]) == Relevance.nameWordFactor)
        // A dotted name: its module's page or source, below a file named as the whole of it; not a man page.
        #expect(Relevance.factor(path: Array("/doc/library/functools.html".utf8), title: nil, words: ["functools.lru_cache"]) == Relevance.qualifiedNameFactor)
        #expect(Relevance.factor(path: Array("/doc/library/asyncio-task.html".utf8), title: nil, words: ["asyncio.gather"]) == Relevance.qualifiedNameFactor)
        #expect(Relevance.factor(path: Array("/m/man1/systemd.1.gz".utf8), title: nil, words: ["systemd.service"]) == 1)
        #expect(Relevance.qualifiedNameFactor < 3)
        // A dotted name's parts are words of a title: all of them, or half.
        #expect(Relevance.factor(path: Array("/x/a".utf8), title: "apt.conf(5) — Configuration file for APT", words: ["apt.conf"]) == 2)
        #expect(Relevance.factor(path: Array("/x/a".utf8), title: "zipfile — Work with ZIP archives", words: ["zipfile.zipfile"]) == 2,
                "zipfile, twice: both parts")
        #expect(Relevance.factor(path: Array("/x/a".utf8), title: "collections — Container datatypes", words: ["collections.ordereddict"]) == 1.25)
        // Words a title or name abbreviates count as its abbreviation; two words never do.
        #expect(Relevance.abbreviated(["r", "frequently", "asked", "questions"], by: ["r", "faq"]) == ["r", "faq"])
        #expect(Relevance.abbreviated(["the", "portable", "document", "format", "spec"], by: ["pdf", "tpdfs"]) == ["tpdfs"], "the longest run")
        #expect(Relevance.abbreviated(["make", "links", "now"], by: ["ml", "faq"]) == ["make", "links", "now"])
        #expect(Relevance.factor(path: Array("/doc/R-FAQ.pdf".utf8), title: "R FAQ", words: ["r", "frequently", "asked", "questions"]) == 6,
                "named and titled as the query")
        #expect(Relevance.factor(path: Array("/doc/faq.pdf".utf8), title: "Frequently asked questions", words: ["r", "frequently", "asked", "questions"])
                == Relevance.nameWordFactor * (1 + 0.75 * 0.75), "named as its abbreviation, titled with three of the four words")
        #expect(Relevance.factor(path: Array("/doc/a.pdf".utf8), title: "ML", words: ["make", "links"]) == 1)
        // Plurals in "es" after a hissing sound are their words ("processes", "process"); others
        // keep Harman's rule ("locales" is not "local", "caches" is "cache").
        #expect(Relevance.singulars("processes") == ["processe", "process"] && Relevance.singulars("matches") == ["matche", "match"])
        #expect(Relevance.singulars("locales") == ["locale"] && Relevance.singulars("caches") == ["cache", "cach"])
        #expect(Relevance.factor(path: Array("/m/man1/killall.1.gz".utf8), title: "killall(1) — kill processes by name", words: ["process", "name"]) == 2)
        #expect(Relevance.factor(path: Array("/x/a".utf8), title: "Local settings", words: ["locales"]) == 1)
    }

    @Test("Language folders: a known code, a region, a variant or an encoding; not other short names", arguments: [
        ("de", true), ("pt_BR", true), ("sr@latin", true), ("zh_CN.UTF-8", true), ("ca@valencia", true), ("fil", false),
        ("doc", false), ("man1", false), ("DE", false), ("de_br", false), ("de_BRA", false), ("xx", false), ("deutsch", false),
        ("de_DE.ISO-8859-1", false), ("d\u{e9}", false), ("", false),
    ])
    func languageFolders(name: String, expected: Bool) {
        #expect(Relevance.isLanguageFolder(Array(name.utf8)[...]) == expected, "\(name)")
    }

    @Test("docent_rank gives bm25()'s scores (without the IDF for a query of one phrase), also after the index changes under the same connection")
    func rankEqualsBM25() throws {
        var rows: [IndexedFile] = []
        for i in 0..<60 {
            // Lengths from a few words to many thousands, the query words repeated in some.
            var body = Self.text(words: 20 + (i * 997) % 6000, seed: UInt64(i + 1))
            if i % 3 == 0 { body += " memory allocation memory" }
            if i % 7 == 0 { body += String(repeating: " allocation", count: i) }
            rows.append(file("/r/doc\(i).txt", body, title: i % 5 == 0 ? "Memory notes \(i)" : nil, inode: Int64(i + 1), modified: Int64(i)))
        }
        try index.upsert(rows)
        // Each query with its count of phrases (東京都 is one phrase of bigrams).
        let queries = [("memory", 1), ("allocation", 1), ("memory allocation", 2), ("memory OR gamma42", 2), ("alpha NOT memory", 2),
                       ("\"memory allocation\"", 1), ("alph*", 1), ("title : memory", 1), ("naive", 1), ("東京都 memory", 2)]
        func compare() throws {
            for (query, phrases) in queries {
                let (pairs, idf) = try index.read { db in
                    let pairs = try Row.fetchAll(db, sql: """
                        SELECT bm25(files_fts, \(FileIndex.weights)) AS a, docent_rank(files_fts, \(FileIndex.weights)) AS b
                        FROM files_fts WHERE files_fts MATCH ?
                        """, arguments: [query]).map { ($0["a"] as Double, $0["b"] as Double) }
                    // A query of one phrase: bm25() weighs it by its IDF, which docent_rank leaves out.
                    let rows = Double(try Int.fetchOne(db, sql: "SELECT count(*) FROM files_fts")!)
                    let hits = Double(pairs.count)
                    return (pairs, max(log((rows - hits + 0.5) / (hits + 0.5)), 1e-6))
                }
                #expect(!pairs.isEmpty, "\(query) matches")
                let factor = phrases == 1 ? idf : 1
                for (a, b) in pairs { #expect(abs(a - b * factor) <= 1e-9 * max(1, abs(a)), "\(query): bm25 \(a), docent_rank \(b)") }
            }
        }
        try compare()
        try compare()  // lengths now remembered
        // Rows change length: remembered lengths must not be used for the new rows.
        try index.upsert((0..<60).filter { $0 % 2 == 0 }.map { i in
            file("/r/doc\(i).txt", Self.text(words: 50 + i * 31, seed: UInt64(i + 100)) + " memory allocation", inode: Int64(i + 1), modified: Int64(i + 1000))
        })
        try compare()
    }

    @Test("docent_score gives BM25's scores at k1 = 5, b = 1, worked out from the index's token instances; docent_rank keeps them for the rows it keeps")
    func scoreAtDocentsParameters() throws {
        try index.upsert((0..<30).map { i in
            var body = (0..<(10 + i * 37)).map { "filler\($0 % 23)" }.joined(separator: " ")
            if i % 2 == 0 { body += String(repeating: " lantern", count: 1 + i % 5) }
            if i % 3 == 0 { body += " harbour lantern" }
            return file("/r/doc\(i).txt", body, title: i % 4 == 0 ? "Lantern \(i)" : nil, inode: Int64(i + 1), modified: Int64(i))
        })
        let weights = FileIndex.weights.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces))! }
        let (k1, b) = (5.0, 1.0)
        try index.read { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE temp.tokens USING fts5vocab(main, files_fts, 'instance')")
            // Every token of every row: each row's length, the average, each term's weighted count per row.
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('files_fts')")
            #expect(columns.count == weights.count)
            var length: [Int64: Double] = [:]
            var frequency: [String: [Int64: Double]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT term, doc, col FROM temp.tokens") {
                let doc: Int64 = row["doc"], term: String = row["term"], column: String = row["col"]
                length[doc, default: 0] += 1
                frequency[term, default: [:]][doc, default: 0] += weights[columns.firstIndex(of: column)!]
            }
            let rows = Double(try Int.fetchOne(db, sql: "SELECT count(*) FROM files_fts")!)
            let average = length.values.reduce(0, +) / rows
            for terms in [["lantern"], ["harbour", "lantern"]] {
                let matching = Set(terms.flatMap { frequency[$0]!.keys }).filter { doc in terms.allSatisfy { frequency[$0]![doc] != nil } }
                let expected = Dictionary(uniqueKeysWithValues: matching.map { doc in
                    (doc, terms.reduce(0.0) { sum, term in
                        let hits = Double(frequency[term]!.count), f = frequency[term]![doc]!, d = length[doc]!
                        // One word: no IDF (the same for every row).
                        let idf = terms.count == 1 ? 1 : max(log((rows - hits + 0.5) / (hits + 0.5)), 1e-6)
                        return sum + idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * d / average))
                    })
                })
                let match = terms.joined(separator: " ")
                let given = try Row.fetchAll(db, sql: "SELECT rowid, -docent_score(files_fts, \(FileIndex.weights)) AS s FROM files_fts WHERE files_fts MATCH ?",
                                             arguments: [match])
                #expect(given.count == expected.count && given.count > 3, "\(terms)")
                for row in given {
                    let id: Int64 = row["rowid"], score: Double = row["s"]
                    #expect(abs(score - expected[id]!) <= 1e-9 * max(1, score), "\(terms) row \(id): \(score) against \(expected[id]!)")
                }
                // The best three by bm25(), each with its docent_score kept; a row never kept has none.
                let kept = try Int64.fetchAll(db, sql: """
                    SELECT rowid FROM files_fts WHERE files_fts MATCH ? ORDER BY -docent_rank(files_fts, \(FileIndex.weights), 3) DESC LIMIT 3
                    """, arguments: [match])
                #expect(kept.count == 3)
                for id in kept {
                    let score = try Double.fetchOne(db, sql: "SELECT -docent_rescored(?)", arguments: [id])
                    #expect(score.map { abs($0 - expected[id]!) <= 1e-9 * max(1, $0) } == true, "\(terms) kept row \(id): \(String(describing: score))")
                }
                #expect(try Double.fetchOne(db, sql: "SELECT docent_rescored(?)", arguments: [1_000_000]) == nil)
            }
        }
    }

    @Test("Rows tied at the k-th best (copies of one file) get their docent_score, whichever of them the statement keeps")
    func rescoredTies() throws {
        try index.upsert((0..<8).map { i in file("/r/copy\(i).txt", "the beacon on the hill, the beacon again", inode: Int64(i + 1), modified: 1) }
                         + (0..<20).map { i in file("/r/other\(i).txt", "a beacon " + String(repeating: "and more words ", count: 5 + i), inode: Int64(i + 100)) })
        try index.read { db in
            // As the search asks: the best three, ties to the newer row (the larger id), of eight equal scores.
            let kept = try Int64.fetchAll(db, sql: """
                SELECT rowid FROM (SELECT rowid, -docent_rank(files_fts, \(FileIndex.weights), 3) AS score FROM files_fts
                                   WHERE files_fts MATCH 'beacon' ORDER BY score DESC, rowid DESC LIMIT 3)
                """)
            #expect(kept.count == 3)
            for id in kept { #expect(try Double.fetchOne(db, sql: "SELECT docent_rescored(?)", arguments: [id]) != nil, "row \(id)") }
        }
    }

    @Test("A search without ranking (a live search's set of matches) finds the same files, newest first")
    func unranked() throws {
        try index.upsert((0..<40).map { i in
            file("/r/doc\(i).txt", Self.text(words: 30 + i * 50, seed: UInt64(i + 1)) + (i % 3 == 0 ? " rareword" : ""),
                 inode: Int64(i + 1), modified: Int64(i * 7 % 40))
        })
        for match in [FTSExpression.term("alpha"), .or([.term("naive"), .term("c3po")]), .not(.term("alpha"), .term("rareword"))] {
            var request = SearchRequest(match: match, limit: Int.max)
            request.snippets = false
            let ranked = try index.search(request)
            request.ranked = false
            let unranked = try index.search(request)
            #expect(!ranked.isEmpty)
            #expect(Set(unranked.map(\.id)) == Set(ranked.map(\.id)))
            #expect(unranked.map(\.modified) == unranked.map(\.modified).sorted(by: >))
        }
    }

    @Test("A snippet deep in a long text, among words of every kind, marks the word the match is on", arguments: [
        0, 3, 40, 9_000, 15_000, 33_333, 70_001, 140_000,
    ])
    func deepSnippet(at depth: Int) throws {
        // The marker with known neighbours at `depth` words into a long text (several 64 KB
        // stretches, non-ASCII words across their edges); then more text after it.
        let before = Self.text(words: depth, seed: UInt64(depth) + 7)
        let after = Self.text(words: 3_000, seed: 99)
        let body = before + "leftthree lefttwo leftone zanzibarmarker rightone " + after
        try index.upsert([file("/r/long.txt", body, inode: 1, modified: 1)])
        // Long texts are stored in blocks (the snippet starts at the window's), short ones in one frame.
        #expect(try storedMethod() == (body.utf8.count >= StoredText.blockedFrom ? 2 : 1))
        let hit = try #require(try index.search(SearchRequest(match: .term("zanzibarmarker"))).first)
        let marked = "\(SearchHit.matchStart)zanzibarmarker\(SearchHit.matchEnd)"
        #expect(hit.snippet.contains("leftthree lefttwo leftone \(marked) rightone"), "\(hit.snippet)")
    }

    /// The first byte of the one stored body: how it is stored.
    func storedMethod() throws -> UInt8? {
        try index.read { db in try Data.fetchOne(db, sql: "SELECT body FROM texts")?.first }
    }

    @Test("In a text stored in blocks, every one of 300 markers (some at blocks' edges, some past a 200 KB run without an ASCII separator) has its own neighbours")
    func blockEdges() throws {
        // Markers about every 3 KB through 1 MB, with a stretch of CJK and emoji longer than a
        // block, so a block must run on to the next separator.
        var body = ""
        for n in 0..<300 {
            body += Self.text(words: 300 + n % 7, seed: UInt64(n))
            if n == 150 { body += String(repeating: "東京都🙂", count: 200_000 / 13) + " " }
            body += "left\(n) mark\(n)q right\(n) "
        }
        try index.upsert([file("/r/blocks.txt", body, inode: 1, modified: 1)])
        #expect(try storedMethod() == 2)
        for n in 0..<300 {
            let hit = try #require(try index.search(SearchRequest(match: .term("mark\(n)q"))).first, "mark\(n)q")
            let marked = "\(SearchHit.matchStart)mark\(n)q\(SearchHit.matchEnd)"
            #expect(hit.snippet.contains("left\(n) \(marked) right\(n)"), "\(n): \(hit.snippet)")
        }
    }

    @Test("Snippets of short texts (stored as they are), of a title match, and of a match at the very end")
    func shortAndEdges() throws {
        try index.upsert([
            file("/r/short.txt", "tiny zanzibarmarker text", inode: 1, modified: 1),
            file("/r/titled.txt", Self.text(words: 20_000, seed: 5), title: "The zanzibarmarker report", inode: 2, modified: 2),
            file("/r/end.txt", Self.text(words: 30_000, seed: 6) + "last zanzibarmarker", inode: 3, modified: 3),
        ])
        let hits = try index.search(SearchRequest(match: .term("zanzibarmarker")))
        let marked = "\(SearchHit.matchStart)zanzibarmarker\(SearchHit.matchEnd)"
        func snippet(_ name: String) -> String? { hits.first { $0.displayPath == "/r/\(name)" }?.snippet }
        #expect(snippet("short.txt") == "tiny \(marked) text")
        #expect(snippet("titled.txt") == "The \(marked) report")
        #expect(snippet("end.txt")?.hasSuffix("last \(marked)") == true, "\(snippet("end.txt") ?? "none")")
    }

    @Test("A damaged stored text fails the search as a damaged index, not as an empty snippet", arguments: [5_000, 60_000])
    func damagedText(words: Int) throws {
        // One frame, or (60,000 words) blocks whose table now points past the end.
        try index.upsert([file("/r/long.txt", Self.text(words: words, seed: 3) + " zanzibarmarker", inode: 1, modified: 1)])
        // Keep the frame's header, cut the rest short.
        try index.write { db in
            try db.execute(sql: "UPDATE texts SET body = substr(body, 1, 40)")
        }
        #expect(throws: IndexError.self) { try index.search(SearchRequest(match: .term("zanzibarmarker"))) }
    }
}
