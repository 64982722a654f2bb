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
        ("(type:pdf OR x)", "fields combine with the rest", 2),
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
