import Foundation
@testable import Index
import Testing

@Suite("Query language")
struct SearchQueryTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Full-text forms", arguments: [
        ("tea", FTSExpression.term("tea")),
        ("green tea", .and([.term("green"), .term("tea")])),
        ("green AND tea", .and([.term("green"), .term("tea")])),
        ("\"green tea\"", .phrase(["green", "tea"])),
        ("mig*", .prefix("mig")),
        ("tea OR coffee", .or([.term("tea"), .term("coffee")])),
        ("tea -milk", .not(.term("tea"), .term("milk"))),
        ("tea NOT milk", .not(.term("tea"), .term("milk"))),
        ("(tea OR coffee) cup", .and([.or([.term("tea"), .term("coffee")]), .term("cup")])),
        ("max_retry_count", .term("max_retry_count")),
        ("title:plan", .columns(["title"], .term("plan"))),
        ("title:\"migration plan\"", .columns(["title"], .phrase(["migration", "plan"]))),
        // Stop words are left out among other words, kept alone, in phrases and in OR.
        ("list block devices by uuid", .and([.term("list"), .term("block"), .term("devices"), .term("uuid")])),
        ("The Hobbit", .term("Hobbit")),
        ("the", .term("the")),
        ("to be", .and([.term("to"), .term("be")])),
        ("\"change root for a command\"", .phrase(["change", "root", "for", "a", "command"])),
        ("the OR a", .or([.term("the"), .term("a")])),
        ("(uuid of disk) OR the", .or([.and([.term("uuid"), .term("disk")]), .term("the")])),
    ])
    func fullText(text: String, expected: FTSExpression) throws {
        #expect(try SearchQuery.parse(text, now: Self.now).match == expected)
    }

    @Test("Fields become filters")
    func fields() throws {
        let q = try SearchQuery.parse("report type:pdf ext:.md -ext:bak -type:image name:*2025* in:/home/me/docs size:>10M modified:>2025-06-01 modified:<7d", now: Self.now)
        #expect(q.match == .term("report"))
        #expect(q.types == ["pdf"] && q.excludedTypes == ["image"])
        #expect(q.extensions == ["md"] && q.excludedExtensions == ["bak"])
        #expect(q.nameGlobs == ["*2025*"])
        #expect(q.directories == ["/home/me/docs"])
        #expect(q.size == [.init(op: .greater, value: 10 * 1024 * 1024)])
        #expect(q.modified == [
            .init(op: .greater, value: 1_748_736_000 * 1_000_000_000),
            .init(op: .greater, value: Int64((Self.now.timeIntervalSince1970 - 7 * 86400) * 1e9)),
        ])
        // A title's words are words of the query: in OR, in parentheses, negated.
        #expect(try SearchQuery.parse("title:plan OR tea", now: Self.now).match == .or([.columns(["title"], .term("plan")), .term("tea")]))
        #expect(try SearchQuery.parse("(tea OR title:\"big plans\") cup", now: Self.now).match
                == .and([.or([.term("tea"), .columns(["title"], .phrase(["big", "plans"]))]), .term("cup")]))
        #expect(try SearchQuery.parse("tea -title:draft", now: Self.now).match == .not(.term("tea"), .columns(["title"], .term("draft"))))
        let onlyFilter = try SearchQuery.parse("type:image", now: Self.now)
        #expect(onlyFilter.match == nil && onlyFilter.types == ["image"])
        let onlyNegation = try SearchQuery.parse("-draft", now: Self.now)
        #expect(onlyNegation.match == nil && onlyNegation.excluded == .term("draft"))
    }

    @Test("Malformed queries say what is wrong and where", arguments: [
        ("\"unclosed phrase", "unbalanced quote", 1),
        ("(tea OR coffee", "'(' is not closed", 1),
        ("tea)", "')' without '('", 4),
        ("colour:red", "unknown field 'colour:'", 1),
        ("size:huge", "cannot read 'huge'", 1),
        ("modified:>yesterday", "cannot read '>yesterday'", 1),
        ("tea OR", "'OR' needs a word after it", 5),
        ("OR tea", "'OR' needs a word before it", 1),
        ("", "the query is empty", 1),
        ("()", "empty parentheses", 1),
        ("(type:pdf OR x)", "fields other than title: combine with the rest", 2),
        ("ext:md OR x", "'OR' needs a word before it", 8),
        ("*", "'*' must end a word", 1),
        ("type:", "'type:' needs a value", 1),
    ])
    func errors(text: String, message: String, column: Int) {
        do {
            _ = try SearchQuery.parse(text, now: Self.now)
            Issue.record("'\(text)' parsed")
        } catch {
            #expect(error.message.contains(message), "\(text): \(error)")
            #expect(error.column == column, "\(text): \(error)")
        }
    }

    // Regression (found by Fuzz/FuzzQuery): values beyond Int64 nanoseconds or bytes trapped
    // in the conversion and crashed `docent search`.
    @Test("Out-of-range sizes and dates are held to the range; NaN is a syntax error", arguments: [
        ("modified:>1138-06-01", true), ("size:<1e30", true), ("modified:<1e12d", true), ("size:>9999999T", true), ("modified:<1e300d", false),
        ("size:nan", false), ("modified:<infd", false),
    ])
    func outOfRange(text: String, accepted: Bool) {
        if accepted {
            #expect(throws: Never.self) { try SearchQuery.parse(text, now: Self.now) }
        } else {
            #expect(throws: QuerySyntaxError.self) { try SearchQuery.parse(text, now: Self.now) }
        }
    }
}

@Suite("Writing rows: identifier pieces and metadata JSON")
struct RowWritingTests {
    /// The splitting as first written (one pass of comparisons over the concatenation of
    /// name and text), kept as the reference the table-driven version must agree with.
    static func referenceSplit(_ text: String) -> String {
        func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }
        func isLower(_ c: UInt8) -> Bool { c >= 0x61 && c <= 0x7A }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        func isAlphanumeric(_ c: UInt8) -> Bool { isUpper(c) || isLower(c) || isDigit(c) }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard isAlphanumeric(bytes[i]) else { i += 1; continue }
            let start = i
            var mixed = false
            while i < bytes.count, isAlphanumeric(bytes[i]) {
                if i > start, isUpper(bytes[i]), !isUpper(bytes[i - 1]) || (i + 1 < bytes.count && isLower(bytes[i + 1])) { mixed = true }
                i += 1
            }
            if mixed, i - start > 3 {
                if !out.isEmpty { out.append(0x20) }
                var previous: UInt8 = 0
                for j in start..<i {
                    let c = bytes[j], next = j + 1 < i ? bytes[j + 1] : 0
                    if j > start, isUpper(c), isLower(previous) || isDigit(previous) || (isUpper(previous) && isLower(next)) { out.append(0x20) }
                    out.append(c)
                    previous = c
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("identifier pieces: name and text split apart equal the reference over their concatenation")
    func identifierPieces() {
        #expect(IdentifierParts.split("parseHTTPResponse", "x getURLForKey2 snake_case XMLHttpRequest ab") == "parse HTTP Response get URL For Key2 XML Http Request")
        // Mostly lowercase, as text is, so the eight-bytes-at-a-time skip is taken and left.
        let alphabet = Array("aaaaaaaabbbbzzzz0009_  .\n-éAZ@[`{😀".unicodeScalars)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            func random() -> String {
                String(String.UnicodeScalarView((0..<Int.random(in: 0...200, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
            }
            let (name, text) = (random(), random())
            #expect(IdentifierParts.split(name, text) == Self.referenceSplit(name + "\n" + text), "\(name) / \(text)")
        }
    }

    @Test("metadata JSON: what JSONSerialization reads back, each value of its type, and its very bytes for the keys it orders alike")
    func metadataJSON() throws {
        let texts = ["title": "A/B \"quoted\" \\ tab\tnew\nline \u{1} é 😀", "author": "Ann", "": "empty key"]
        let json = IndexedFile.metadataJSON(texts.mapValues { .text($0) })
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        #expect(parsed == texts)
        let foundation = try JSONSerialization.data(withJSONObject: texts, options: [.sortedKeys])
        #expect(json == String(decoding: foundation, as: UTF8.self))
        #expect(IndexedFile.metadataJSON([:]) == "{}")
        // Typed values stay typed: a page count is a number, a flag a boolean, keywords a list.
        let typed = IndexedFile.metadataJSON(["pages": .integer(12), "encrypted": .boolean(false), "duration": .number(2.5),
                                              "keywords": .list(["a", "b/c"]), "created": .text("2024-01-02T03:04:05Z")])
        #expect(typed == #"{"created":"2024-01-02T03:04:05Z","duration":2.5,"encrypted":false,"keywords":["a","b\/c"],"pages":12}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(typed.utf8)) as? [String: Any])
        #expect(object["pages"] as? Int == 12)
        #expect(object["duration"] as? Double == 2.5)
        #expect(object["keywords"] as? [String] == ["a", "b/c"])
    }
}
