public import Foundation

/// A parsed `docent search` query: the full-text part and the field filters.
///
/// Syntax: words (all must match), `"exact phrases"`, `prefix*`, `OR`, `-word` or `NOT word`,
/// parentheses, and fields `type:`, `ext:`, `name:` (a glob), `in:` (a directory),
/// `size:` (`>10M`, `<1k`, `2048`), `modified:` (`>2025-06-01`, `<7d`), `title:`, `host:`. Fields
/// combine with the rest by AND; `-type:` and `-ext:` exclude.
public struct SearchQuery: Sendable, Equatable {
    /// The full-text part; nil when the query has only filters or only exclusions.
    public var match: FTSExpression?
    /// Words that must not match, when nothing positive is asked for (`-draft` alone).
    public var excluded: FTSExpression?
    public var types: [String] = []
    public var excludedTypes: [String] = []
    public var extensions: [String] = []
    public var excludedExtensions: [String] = []
    public var nameGlobs: [String] = []
    public var directories: [String] = []
    public var size: [Comparison] = []
    /// Modification-time bounds, in nanoseconds since the epoch.
    public var modified: [Comparison] = []
    /// Hosts (`host:`), any of which a hit must come from.
    public var hosts: [String] = []

    /// A bound on a number.
    public struct Comparison: Sendable, Equatable {
        public enum Operator: String, Sendable { case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "=" }
        public var op: Operator
        public var value: Int64
    }

    /// Parses `text`, relative to `now` for ages such as `modified:<7d`.
    public static func parse(_ text: String, now: Date = Date()) throws(QuerySyntaxError) -> SearchQuery {
        var parser = QueryParser(tokens: try QueryLexer.tokens(text), now: now)
        return try parser.parse()
    }
}

/// What is wrong with a query, and where (1-based column).
public struct QuerySyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var column: Int

    public var description: String { "query error at column \(column): \(message)" }
}

/// A field of the query language (`type:pdf`): what the lexer accepts and the parser applies.
public enum QueryField: String, Sendable, CaseIterable {
    case type, ext, name, `in`, size, modified, title, host

    /// A text field: its words are part of the full-text match, anywhere a word can stand.
    /// The others filter rows and combine with the rest by AND, at the top level only.
    var isText: Bool { self == .title }
    /// Whether `-field:` excludes.
    var canBeExcluded: Bool { self == .type || self == .ext }
}

/// A query token with its position.
struct QueryToken: Equatable {
    enum Kind: Equatable {
        case word(String), phrase(String), open, close, or, not, minus
        case field(QueryField, value: String)
    }
    var kind: Kind
    var column: Int
}

enum QueryLexer {
    static func tokens(_ text: String) throws(QuerySyntaxError) -> [QueryToken] {
        var tokens: [QueryToken] = []
        let chars = Array(text)
        var i = 0
        func readQuoted(from start: Int) throws(QuerySyntaxError) -> String {
            var j = start + 1
            while j < chars.count, chars[j] != "\"" { j += 1 }
            guard j < chars.count else { throw QuerySyntaxError(message: "unbalanced quote: a phrase is not closed", column: start + 1) }
            i = j + 1
            return String(chars[(start + 1)..<j])
        }
        while i < chars.count {
            let c = chars[i]
            let column = i + 1
            if c.isWhitespace { i += 1; continue }
            switch c {
            case "(": tokens.append(QueryToken(kind: .open, column: column)); i += 1
            case ")": tokens.append(QueryToken(kind: .close, column: column)); i += 1
            case "\"": tokens.append(QueryToken(kind: .phrase(try readQuoted(from: i)), column: column))
            case "-" where i + 1 < chars.count && !chars[i + 1].isWhitespace:
                tokens.append(QueryToken(kind: .minus, column: column)); i += 1
            default:
                var j = i
                while j < chars.count, !chars[j].isWhitespace, chars[j] != "(", chars[j] != ")", chars[j] != "\"" {
                    if chars[j] == ":" { break }
                    j += 1
                }
                if j < chars.count, chars[j] == ":", j > i {
                    let name = String(chars[i..<j]).lowercased()
                    guard let field = QueryField(rawValue: name) else {
                        let known = QueryField.allCases.map(\.rawValue).joined(separator: ", ")
                        throw QuerySyntaxError(message: "unknown field '\(name):' (fields: \(known))", column: column)
                    }
                    let value: String
                    if j + 1 < chars.count, chars[j + 1] == "\"" {
                        value = try readQuoted(from: j + 1)
                    } else {
                        var k = j + 1
                        while k < chars.count, !chars[k].isWhitespace, chars[k] != ")" { k += 1 }
                        value = String(chars[(j + 1)..<k])
                        i = k
                    }
                    guard !value.isEmpty else { throw QuerySyntaxError(message: "'\(name):' needs a value", column: column) }
                    tokens.append(QueryToken(kind: .field(field, value: value), column: column))
                    continue
                }
                while j < chars.count, !chars[j].isWhitespace, chars[j] != "(", chars[j] != ")", chars[j] != "\"" { j += 1 }
                let word = String(chars[i..<j])
                i = j
                switch word {
                case "OR": tokens.append(QueryToken(kind: .or, column: column))
                case "NOT": tokens.append(QueryToken(kind: .not, column: column))
                case "AND": continue  // the default
                default: tokens.append(QueryToken(kind: .word(word), column: column))
                }
            }
        }
        return tokens
    }
}
