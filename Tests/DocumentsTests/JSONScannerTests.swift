@testable import Documents
import Testing

@Suite("JSON scanner")
struct JSONScannerTests {
    // Regression: numbers were checked with a Regex, which took 30 s on a 12 MB file.
    @Test("Numbers follow JSON's grammar", arguments: [
        ("0", true), ("-0", true), ("12", true), ("1.5", true), ("-1.5e+10", true), ("2E-3", true), ("0.0", true),
        ("01", false), ("1.", false), (".5", false), ("+1", false), ("1e", false), ("-", false), ("0x10", false), ("NaN", false),
    ])
    func numbers(token: String, valid: Bool) {
        #expect(JSONScanner.isNumber(token) == valid)
    }

    @Test("Errors give line and column; a head is not an error for being cut")
    func errors() {
        var scanner = JSONScanner()
        #expect(throws: JSONScanner.SyntaxError.self) { try scanner.scan(Array("{\n  \"a\": 1,\n  \"b\" 2\n}".utf8), isComplete: true) }
        do {
            var s = JSONScanner()
            try s.scan(Array("{\n  \"a\": 1,\n  \"b\" 2\n}".utf8), isComplete: true)
        } catch {
            #expect(error.description == "invalid JSON at line 3, column 7: expected ':' after a key")
        }
        var head = JSONScanner()
        #expect(throws: Never.self) { try head.scan(Array(#"{"a": [1, 2, "unfinis"#.utf8), isComplete: false) }
        #expect(head.topLevelKeys == ["a"])
    }

    // Regression (found by Fuzz/FuzzJSON): an error inside a string was made by a closure that
    // read the index the string reader held inout — an exclusivity violation that crashed
    // `docent index` on a 24-byte file.
    @Test("An error inside a string is reported at its place, not a crash", arguments: [
        (Array("{\"ln}:lu\nC".utf8) + [0, 0, 0, 0, 0, 0, 0], "invalid JSON at line 1, column 9: control character in a string"),
        (Array(#"["ab\q"]"#.utf8), #"invalid JSON at line 1, column 5: bad escape '\q'"#),
        (Array("[\"a\u{01}b\"]".utf8), "invalid JSON at line 1, column 4: control character in a string"),
        (Array(#"["\uZZZZ"]"#.utf8), #"invalid JSON at line 1, column 3: bad \u escape"#),
    ])
    func errorsInsideStrings(bytes: [UInt8], message: String) {
        var scanner = JSONScanner()
        do {
            try scanner.scan(bytes, isComplete: true)
            Issue.record("no error for \(bytes)")
        } catch {
            #expect(error.description == message)
        }
    }
}
