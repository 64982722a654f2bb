import Foundation
import Index
import Testing

/// The reader's marks: every match in a whole text as the index matches it.
@Suite("Matches marked as the index matched them")
struct MatchMarkingTests {
    /// The marked words of `text` for the query `query`.
    func marked(_ query: String, in text: String) throws -> [String] {
        let expression = try #require(try SearchQuery.parse(query).match?.highlighted)
        let bytes = Array(text.utf8)
        return try TextWords().matches(in: text, of: expression).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test("Stems, prefixes, phrases, accents and CJK bigrams: what matched is what is marked",
          arguments: [
              ("run", "She runs; they ran; running late. A runner.", ["runs", "running"]),
              ("kett*", "A kettle, two kettles, a ketch and a Kettering.", ["kettle", "kettles", "Kettering"]),
              ("\"free software\"", "Free software is software that is free. free  Software.", ["Free software", "free  Software"]),
              ("cafe", "The Café and the cafe.", ["Café", "cafe"]),
              ("東京", "東京都に住む。京都ではない。", ["東京"]),
              ("apple -pear", "An apple and a pear.", ["apple"]),
              ("apple OR pear plum", "apple, pear, plum, quince", ["apple", "pear", "plum"]),
              ("title:report budget", "The report on the budget.", ["budget"]),
          ])
    func marks(query: String, text: String, expected: [String]) throws {
        #expect(try marked(query, in: text) == expected)
    }

    @Test("A text without the words has no marks; a long text keeps its byte offsets exact")
    func offsets() throws {
        #expect(try marked("zebra", in: "no such animal here").isEmpty)
        let line = "Ünïcödé filler — padding text. "
        let text = String(repeating: line, count: 5_000) + "the needle at the end"
        let words = try TextWords()
        let ranges = try words.matches(in: text, of: .term("needle"))
        #expect(ranges.count == 1)
        #expect(ranges.first.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) } == "needle")
    }
}
