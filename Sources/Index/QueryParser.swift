import Foundation

/// A recursive-descent parser over query tokens (depth bounded by the query's own length).
struct QueryParser {
    let tokens: [QueryToken]
    let now: Date
    var position = 0
    /// How many parentheses are open: fields are allowed only at depth 0.
    var depth = 0
    var query = SearchQuery()

    init(tokens: [QueryToken], now: Date) {
        self.tokens = tokens
        self.now = now
    }

    mutating func parse() throws(QuerySyntaxError) -> SearchQuery {
        guard !tokens.isEmpty else { throw QuerySyntaxError(message: "the query is empty", column: 1) }
        var positives: [FTSExpression] = []
        var negatives: [FTSExpression] = []
        // The top level: a sequence of conjuncts, where fields are allowed.
        while position < tokens.count {
            let token = tokens[position]
            switch token.kind {
            case .field(let field, let value) where !field.isText:
                position += 1
                try apply(field, value: value, negated: false, column: token.column)
            case .minus, .not:
                if position + 1 < tokens.count, case .field(let field, let value) = tokens[position + 1].kind, !field.isText {
                    guard field.canBeExcluded else {
                        throw QuerySyntaxError(message: "only type: and ext: can be excluded", column: token.column)
                    }
                    position += 2
                    try apply(field, value: value, negated: true, column: token.column)
                } else {
                    position += 1
                    negatives.append(try primary())
                }
            case .close:
                throw QuerySyntaxError(message: "unbalanced parenthesis: ')' without '('", column: token.column)
            default:
                positives.append(try disjunction())
            }
        }
        positives = StopWords.optional(positives)
        let positive: FTSExpression? = positives.isEmpty ? nil : positives.count == 1 ? positives[0] : .and(positives)
        let negative: FTSExpression? = negatives.isEmpty ? nil : negatives.count == 1 ? negatives[0] : .or(negatives)
        switch (positive, negative) {
        case (let p?, _?): query.match = Self.combine(positives.count == 1 ? [p] : [.and(positives)], negatives)
        case (let p?, nil): query.match = p
        case (nil, let n?): query.excluded = n
        case (nil, nil): break
        }
        return query
    }

    /// `a OR b OR c`
    mutating func disjunction() throws(QuerySyntaxError) -> FTSExpression {
        var parts = [try conjunction()]
        while position < tokens.count, tokens[position].kind == .or {
            let column = tokens[position].column
            position += 1
            guard position < tokens.count, tokens[position].kind != .close, tokens[position].kind != .or else {
                throw QuerySyntaxError(message: "'OR' needs a word after it", column: column)
            }
            parts.append(try conjunction())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    /// Adjacent terms inside parentheses or an OR branch; `-x` subtracts.
    mutating func conjunction() throws(QuerySyntaxError) -> FTSExpression {
        var positives = [try primary()]
        var negatives: [FTSExpression] = []
        while position < tokens.count {
            switch tokens[position].kind {
            case .word, .phrase, .open, .field(.title, _):
                positives.append(try primary())
            case .minus, .not:
                position += 1
                negatives.append(try primary())
            case .field where depth == 0:
                return Self.combine(positives, negatives)  // the top level takes the field
            case .field:
                throw QuerySyntaxError(message: Self.fieldPlacement, column: tokens[position].column)
            default:
                return Self.combine(positives, negatives)
            }
            if case .or = tokens[position - 1].kind { break }
            if position < tokens.count, tokens[position].kind == .or { break }
        }
        return Self.combine(positives, negatives)
    }

    static let fieldPlacement = "fields other than title: combine with the rest of the query by AND; they cannot stand inside parentheses or OR"

    static func combine(_ positives: [FTSExpression], _ negatives: [FTSExpression]) -> FTSExpression {
        let positives = StopWords.optional(positives)
        let positive = positives.count == 1 ? positives[0] : .and(positives)
        if negatives.isEmpty { return positive }
        return .not(positive, negatives.count == 1 ? negatives[0] : .or(negatives))
    }

    mutating func primary() throws(QuerySyntaxError) -> FTSExpression {
        guard position < tokens.count else {
            throw QuerySyntaxError(message: "the query ends where a word was expected", column: (tokens.last?.column ?? 0) + 1)
        }
        let token = tokens[position]
        position += 1
        switch token.kind {
        case .word(let word):
            if word.hasSuffix("*") {
                let stem = String(word.dropLast())
                guard !stem.isEmpty, !stem.contains("*") else { throw QuerySyntaxError(message: "'*' must end a word", column: token.column) }
                return .prefix(stem)
            }
            return .term(word)
        case .phrase(let text):
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard !words.isEmpty else { throw QuerySyntaxError(message: "the phrase is empty", column: token.column) }
            return words.count == 1 ? .term(words[0]) : .phrase(words)
        case .open:
            guard position < tokens.count, tokens[position].kind != .close else {
                throw QuerySyntaxError(message: "empty parentheses", column: token.column)
            }
            depth += 1
            let inner = try disjunction()
            depth -= 1
            guard position < tokens.count, tokens[position].kind == .close else {
                throw QuerySyntaxError(message: "unbalanced parenthesis: '(' is not closed", column: token.column)
            }
            position += 1
            return inner
        case .or:
            throw QuerySyntaxError(message: "'OR' needs a word before it", column: token.column)
        case .close:
            throw QuerySyntaxError(message: "unbalanced parenthesis: ')' without '('", column: token.column)
        case .not, .minus:
            throw QuerySyntaxError(message: "a negation needs a word to negate", column: token.column)
        case .field(.title, let value):
            // A word of the title: part of the text query, so anywhere a word can be.
            return .columns(["title"], try words(value, column: token.column))
        case .field:
            throw QuerySyntaxError(message: Self.fieldPlacement, column: token.column)
        }
    }

    /// A field's value as words (for `title:`).
    func words(_ value: String, column: Int) throws(QuerySyntaxError) -> FTSExpression {
        let words = value.split(whereSeparator: \.isWhitespace).map(String.init)
        return words.count == 1 ? (words[0].hasSuffix("*") ? .prefix(String(words[0].dropLast())) : .term(words[0])) : .phrase(words)
    }

    mutating func apply(_ field: QueryField, value: String, negated: Bool, column: Int) throws(QuerySyntaxError) {
        switch field {
        case .type: negated ? query.excludedTypes.append(value) : query.types.append(value)
        case .ext:
            let ext = value.hasPrefix(".") ? String(value.dropFirst()) : value
            negated ? query.excludedExtensions.append(ext) : query.extensions.append(ext)
        case .name: query.nameGlobs.append(value)
        case .in: query.directories.append(value)
        case .host: query.hosts.append(value)
        case .size: query.size.append(try Self.comparison(value, column: column, parse: Self.bytes))
        case .modified:
            var bound = try Self.comparison(value, column: column) { try Self.time($0, now: now) }
            // An age counts backwards: "modified:<7d" is "less than 7 days ago", a time after now - 7d.
            if let last = value.last, "mhdwy".contains(last), value.dropLast().last?.isNumber == true {
                bound.op = switch bound.op {
                case .less: .greater
                case .lessOrEqual: .greaterOrEqual
                case .greater: .less
                case .greaterOrEqual: .lessOrEqual
                case .equal: .equal
                }
            }
            query.modified.append(bound)
        case .title: break  // part of the match (`primary()`)
        }
    }

    static func comparison(_ value: String, column: Int, parse: (String) throws -> Int64?) throws(QuerySyntaxError) -> SearchQuery.Comparison {
        var rest = Substring(value)
        var op = SearchQuery.Comparison.Operator.equal
        for candidate in [SearchQuery.Comparison.Operator.lessOrEqual, .greaterOrEqual, .less, .greater, .equal]
        where rest.hasPrefix(candidate.rawValue) {
            op = candidate
            rest = rest.dropFirst(candidate.rawValue.count)
            break
        }
        guard let number = (try? parse(String(rest))) ?? nil else {
            throw QuerySyntaxError(message: "cannot read '\(value)': sizes are like 10k, 2M, 1G; dates like 2025-06-01 or ages like 7d, 12h, 2w", column: column)
        }
        return SearchQuery.Comparison(op: op, value: number)
    }

    /// `2048`, `10k`, `1.5M`, `2G` (binary units).
    static func bytes(_ text: String) -> Int64? {
        let units: [Character: Double] = ["k": 1024, "m": 1024 * 1024, "g": 1024 * 1024 * 1024, "t": 1024 * 1024 * 1024 * 1024]
        var number = text.lowercased()
        if number.hasSuffix("b") { number.removeLast() }
        var scale = 1.0
        if let last = number.last, let unit = units[last] {
            scale = unit
            number.removeLast()
        }
        guard let value = Double(number), value >= 0 else { return nil }
        return clamped(value * scale)
    }

    /// A date (`2025-06-01`, UTC) or an age before `now` (`7d`, `12h`, `30m`, `2w`, `1y`), in nanoseconds.
    static func time(_ text: String, now: Date) throws -> Int64? {
        let ages: [Character: Double] = ["m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400]
        if let unit = text.last, let seconds = ages[unit], let count = Double(text.dropLast()) {
            return clamped((now.timeIntervalSince1970 - count * seconds) * 1e9)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = text.count > 10 ? "yyyy-MM-dd'T'HH:mm" : "yyyy-MM-dd"
        guard let date = formatter.date(from: text) else { return nil }
        return clamped(date.timeIntervalSince1970 * 1e9)
    }

    /// `value` as an Int64, held to Int64's range (a date before 1678 in nanoseconds is below
    /// it, and means "before every file"); nil for NaN and infinities. Regression (found by
    /// Fuzz/FuzzQuery): `modified:>1138-06-01`, `size:<1e30`, `size:nan` crashed the search.
    static func clamped(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        if value <= -9.223_372_036_854_775e18 { return .min }
        if value >= 9.223_372_036_854_775e18 { return .max }
        return Int64(value)
    }
}
