/// One pass over JSON text that validates it, re-indents its head, and collects its
/// top-level keys and string values, without building a tree: memory stays bounded by the
/// head and the strings kept, whatever the nesting or the size.
struct JSONScanner {
    /// Where and why the text is not JSON.
    struct SyntaxError: Error, CustomStringConvertible {
        var line: Int, column: Int, message: String
        var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
    }

    /// The kind of the top-level value.
    enum Kind: String { case object, array, string, number, boolean, null }

    private(set) var kind: Kind?
    /// Keys of the top-level object, in order (at most `keyLimit`).
    private(set) var topLevelKeys: [String] = []
    /// Number of members of the top-level array or object.
    private(set) var topLevelCount = 0
    /// The first lines, pretty-printed with two-space indentation.
    private(set) var prettyHead = ""
    private(set) var prettyHeadIsCut = false
    /// Every string (keys and values), for the text the index stores, up to `textLimit` bytes.
    private(set) var strings: [String] = []
    private(set) var maximumDepth = 0

    let headLines: Int, keyLimit: Int, textLimit: Int
    private var prettyLines = 0
    private var textBytes = 0

    init(headLines: Int = 60, keyLimit: Int = 200, textLimit: Int = 1 << 20) {
        self.headLines = headLines
        self.keyLimit = keyLimit
        self.textLimit = textLimit
    }

    // MARK: - Scanning

    private enum Container { case object, array }
    private enum Expect { case value, keyOrEnd, key, colon, commaOrEnd, valueOrEnd }

    /// Scans `bytes`; throws the first syntax error. `isComplete` false means the bytes are
    /// a head, so running out of input is not an error.
    mutating func scan(_ bytes: [UInt8], isComplete: Bool) throws(SyntaxError) {
        try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(SyntaxError) in try scan(buffer, isComplete: isComplete) }
        }.get()
    }

    /// Scans `bytes` in place (a file's bytes are not copied first); as `scan(_:isComplete:)`.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, isComplete: Bool) throws(SyntaxError) {
        var stack: [Container] = []
        var expect = Expect.value
        var i = 0, line = 1, lineStart = 0
        var breakPending = false  // a line break goes before the next token (after '{', '[' or ',')
        func fail(_ message: String) -> SyntaxError { SyntaxError(line: line, column: i - lineStart + 1, message: message) }

        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while true {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D {
                if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
                i += 1
            }
            guard i < bytes.count else { break }
            let c = bytes[i]
            if stack.isEmpty, kind != nil { throw fail("unexpected text after the top-level value") }
            if expect == .colon {
                guard c == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                i += 1
                emit(": ")
                expect = .value
                continue
            }
            if c == UInt8(ascii: ","), expect == .commaOrEnd {
                i += 1
                emit(",")
                breakPending = true
                expect = stack.last == .object ? .key : .value
                continue
            }
            if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                let closes: Container = c == UInt8(ascii: "}") ? .object : .array
                guard stack.last == closes, expect == .commaOrEnd || expect == .keyOrEnd || expect == .valueOrEnd else {
                    throw fail("unexpected '\(Character(Unicode.Scalar(c)))'")
                }
                stack.removeLast()
                i += 1
                if !breakPending { newline(depth: stack.count) }
                breakPending = false
                emit(closes == .object ? "}" : "]")
                expect = .commaOrEnd
                continue
            }
            let isKey: Bool
            switch expect {
            case .commaOrEnd: throw fail(stack.last == .object ? "expected ',' or '}'" : "expected ',' or ']'")
            case .key, .keyOrEnd:
                guard c == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                isKey = true
            default:
                isKey = false
            }
            if stack.count == 1, isKey || stack.last == .array { topLevelCount += 1 }
            if breakPending { newline(depth: stack.count) }
            breakPending = false
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let container: Container = c == UInt8(ascii: "{") ? .object : .array
                if stack.isEmpty { kind = container == .object ? .object : .array }
                stack.append(container)
                maximumDepth = max(maximumDepth, stack.count)
                i += 1
                emit(container == .object ? "{" : "[")
                breakPending = true
                expect = container == .object ? .keyOrEnd : .valueOrEnd
            case UInt8(ascii: "\""):
                let start = i
                // The string's end comes back as a value: `fail` reads `i`, so `i` cannot be
                // lent inout meanwhile (that was an exclusivity violation: a crash, found by FuzzJSON).
                let (read, end) = try string(bytes, from: i) { message, at in
                    SyntaxError(line: line, column: at - lineStart + 1, message: message)
                }
                i = end
                guard let value = read else {  // input ends inside the string
                    if isComplete { throw fail("unterminated string") }
                    return
                }
                emit(String(decoding: bytes[start..<i], as: UTF8.self))
                keep(value)
                if isKey {
                    if stack.count == 1, topLevelKeys.count < keyLimit { topLevelKeys.append(value) }
                    expect = .colon
                } else {
                    if stack.isEmpty { kind = .string }
                    expect = .commaOrEnd
                }
            default:
                let start = i
                while i < bytes.count, !Self.delimiters.contains(bytes[i]) { i += 1 }
                let token = String(decoding: bytes[start..<i], as: UTF8.self)
                let tokenKind: Kind
                switch token {
                case "true", "false": tokenKind = .boolean
                case "null": tokenKind = .null
                default:
                    guard Self.isNumber(token) else {
                        if i == bytes.count, !isComplete { return }
                        throw fail("unexpected '\(token.prefix(20))'")
                    }
                    tokenKind = .number
                }
                if stack.isEmpty { kind = tokenKind }
                emit(token)
                expect = .commaOrEnd
            }
        }
        if isComplete {
            if kind == nil { throw fail("the file holds no JSON value") }
            if !stack.isEmpty { throw fail("unexpected end of file: \(stack.count) unclosed bracket\(stack.count == 1 ? "" : "s")") }
        }
    }

    private static let delimiters: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"),
                                                 UInt8(ascii: "}"), UInt8(ascii: ":"), UInt8(ascii: "\"")]

    /// Whether `token` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isNumber(_ token: String) -> Bool {
        var bytes = token.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        if bytes.first == UInt8(ascii: "0") { bytes = bytes.dropFirst() } else if digits() == 0 { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            if digits() == 0 { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            if digits() == 0 { return false }
        }
        return bytes.isEmpty
    }

    /// Reads the string starting at `start` (a quote): the string (nil when the input ends
    /// inside it) and the index after it. `fail` makes the error for a message at an index.
    private func string(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int,
                        fail: (String, Int) -> SyntaxError) throws(SyntaxError) -> (String?, end: Int) {
        var out: [UInt8] = []
        var i = start + 1
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                return (String(decoding: out, as: UTF8.self), i + 1)
            }
            if c < 0x20 { throw fail("control character in a string", i) }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < bytes.count else { return (nil, bytes.count) }
                let e = bytes[i + 1]
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"), UInt8(ascii: "f"): out.append(0x20)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "u"):
                    guard i + 5 < bytes.count else { return (nil, bytes.count) }
                    guard let unit = UInt32(String(decoding: bytes[(i + 2)...(i + 5)], as: UTF8.self), radix: 16) else {
                        throw fail("bad \\u escape", i)
                    }
                    out.append(contentsOf: String(Unicode.Scalar(unit).map(Character.init) ?? "\u{FFFD}").utf8)
                    i += 4
                default: throw fail("bad escape '\\\(Character(Unicode.Scalar(e)))'", i)
                }
                i += 2
                continue
            }
            out.append(c)
            i += 1
        }
        return (nil, bytes.count)
    }

    // MARK: - Output

    private mutating func emit(_ token: String) {
        if !prettyHeadIsCut { prettyHead += token }
    }

    private mutating func newline(depth: Int) {
        guard !prettyHeadIsCut else { return }
        prettyLines += 1
        if prettyLines >= headLines {
            prettyHeadIsCut = true
            return
        }
        prettyHead += "\n" + String(repeating: "  ", count: depth)
    }

    private mutating func keep(_ string: String) {
        guard textBytes < textLimit, !string.isEmpty else { return }
        textBytes += string.utf8.count
        strings.append(string)
    }
}
