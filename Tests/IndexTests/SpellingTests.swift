import Foundation
@testable import Index
import Testing
import TestSupport

/// "Did you mean": a word the index holds in few files or none, and the closest word it holds.
@Suite("Spelling suggestions")
struct SpellingTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/data/docent/index.sqlite")
        var rows = [
            file("/r/a.txt", "Please receive the parcel at the door.", inode: 1),
            file("/r/b.txt", "We received many letters about the information desk.", inode: 2),
            file("/r/c.txt", "The separate accommodation was necessary.", inode: 3),
            file("/r/d.txt", "列出目录内容 and the receiving end", inode: 4),
        ]
        // Enough files that one holding a word is "few" (one in a thousand), and a few
        // with the misspelling itself.
        for i in 0..<1200 { rows.append(file("/r/filler\(i).txt", "filler text number \(i) about the weather", inode: Int64(10 + i))) }
        rows.append(file("/r/typo.txt", "the letter says seperate", inode: 5000))
        try index.upsert(rows)
    }

    func suggested(_ query: String) throws -> [String: String] {
        let suggestions = try index.suggestions(for: try SearchQuery.parse(query).match)
        return Dictionary(uniqueKeysWithValues: suggestions.map { ($0.word, $0.suggestion) })
    }

    @Test("Slips of one edit are suggested: swapped, left out, doubled, a neighbouring key, a vowel for a vowel", arguments: [
        ("recieve", "receive"),          // two letters swapped
        ("parcle", "parcel"),
        ("informaton", "information"),   // one left out
        ("necissary", "necessary"),      // a vowel for a vowel
        ("accomodation", "accommodation"),
        ("necesary", "necessary"),
        ("weathet", "weather"),          // r → t, neighbours on the keyboard
        ("leters", "letters"),
    ])
    func slips(typed: String, expected: String) throws {
        #expect(try suggested(typed) == [typed: expected])
    }

    @Test("No suggestion for words the index holds often, words nothing is close to, CJK, numbers, short words or prefixes")
    func none() throws {
        for query in ["receive", "weather", "qzxvnohitword", "目录", "12345", "ab", "recie*", "\"the parcel\""] {
            #expect(try suggested(query).isEmpty, "\(query)")
        }
    }

    @Test("A word held in few files is still corrected when a close word is held in ten times as many")
    func rareButPresent() throws {
        // seperate: one file (of 1,205), as separate is.
        let suggestions = try index.suggestions(for: try SearchQuery.parse("seperate").match)
        #expect(suggestions.isEmpty, "one file against one is not ten times: \(suggestions)")
        try index.upsert((0..<10).map { file("/r/more\($0).txt", "kept separate from the rest", inode: Int64(6000 + $0)) })
        let said = try index.suggestions(for: try SearchQuery.parse("seperate").match)
        #expect(said.map(\.suggestion) == ["separate"] && said.first?.files == 11, "\(said)")
        #expect(said.first?.isConfident == false, "eleven files against one: said, not searched unasked")
        try index.upsert((10..<20).map { file("/r/more\($0).txt", "kept separate from the rest", inode: Int64(6000 + $0)) })
        let now = try index.suggestions(for: try SearchQuery.parse("seperate").match)
        #expect(now.map(\.suggestion) == ["separate"], "\(now)")
        #expect(now.first?.filesTyped == 1)
        #expect(now.first?.isConfident == true, "21 files against one: searched too")
        // A rare word whose one-edit variant stems to a common word that begins it is no slip:
        // `pagerank` in one file, `pager` (the stem of `pagerant`) in twenty.
        try index.upsert([file("/r/graph.txt", "the pagerank of each node", inode: 7000)]
            + (0..<20).map { file("/r/pager\($0).txt", "set the pager to less", inode: Int64(7100 + $0)) })
        #expect(try suggested("pagerank").isEmpty)
        #expect(try suggested("pagerak")["pagerak"] != nil, "a word no file holds is still corrected")
    }

    @Test("A typed word is rare up to one file in a thousand: one more, and no variant is looked for")
    func threshold() throws {
        // 1,205 files and 26 more: one file in a thousand is one file.
        try index.upsert([file("/r/flowr1.txt", "a flowr in the garden", inode: 8000)]
            + (0..<25).map { file("/r/flower\($0).txt", "a flower in the garden", inode: Int64(8100 + $0)) })
        #expect(try suggested("flowr") == ["flowr": "flower"])
        try index.upsert([file("/r/flowr2.txt", "another flowr", inode: 8001)])
        #expect(try suggested("flowr").isEmpty, "two files of 1,232 are more than one in a thousand")
    }

    @Test("Each word of a query gets its own; --fuzzy's expression searches the suggestion beside the word")
    func widened() throws {
        #expect(try suggested("recieve parcle door") == ["recieve": "receive", "parcle": "parcel"])
        let match = try #require(try SearchQuery.parse("recieve door").match)
        let wide = match.widened(with: ["recieve": ["receive"]])
        #expect(try index.search(SearchRequest(match: match)).isEmpty)
        #expect(try index.search(SearchRequest(match: wide)).map(\.displayPath) == ["/r/a.txt"])
    }

    @Test("Variants: every one-edit word once, the likeliest slips weighted highest")
    func variants() {
        let variants = Spelling.variants(of: "cat")
        // 3 deletions + 2 swaps + 3×25 substitutions + 4×26 insertions, of which three are
        // the same word twice (ccat, caat, catt).
        #expect(Set(variants.map(\.word)).count == variants.count)
        #expect(variants.count == 181, "\(variants.count)")
        let weight = Dictionary(uniqueKeysWithValues: variants.map { ($0.word, $0.weight) })
        #expect(weight["act"] == 1.0)    // swapped
        #expect(weight["cst"] == 0.8)    // a → s, neighbours
        #expect(weight["cet"] == 0.7)    // a vowel for a vowel
        #expect(weight["cmt"] == 0.4)
        #expect(weight["catt"] == 0.9)   // a letter doubled
        #expect(Spelling.neighbours["g"] == ["f", "h", "t", "y", "v", "b"])
    }
}
