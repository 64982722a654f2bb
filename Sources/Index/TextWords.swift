import CSQLite
import CSnippet
import Foundation

/// The SQLite index's words outside it: the `docent` tokenizer (Sources/CSnippet/tokenizer.c:
/// Porter stems, accents folded, CJK bigrams) and `docent_snippet` on an in-memory SQLite
/// connection of its own, so that another store (PostgreSQL) finds the same words, ranks the
/// same fields and shows the same snippets as the SQLite file. SQLite's C API directly: a
/// search makes one of these, and GRDB's set-up and per-statement authorizer cost it more
/// than the work.
///
/// One connection: use an instance from one thread at a time.
public final class TextWords {
    private let db: OpaquePointer
    /// The statements that fill, read and empty docent_snippet's tables (made on first use).
    private struct SnippetStatements {
        var files, texts, fts, select: OpaquePointer
        var clear: [OpaquePointer]
        var all: [OpaquePointer] { [files, texts, fts, select] + clear }
    }
    private var snippetStatements: SnippetStatements?
    /// The statements of `matches(in:of:)` (made on first use).
    private var matchStatements: (insert: OpaquePointer, select: OpaquePointer, clear: OpaquePointer)?

    public init() throws(IndexError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_MEMORY
        guard sqlite3_open_v2(":memory:", &handle, flags, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw IndexError.database(message: "cannot open an in-memory SQLite database for the tokenizer")
        }
        db = handle
        let rc = docent_register_search_functions(UnsafeMutableRawPointer(db))
        guard rc == SQLITE_OK else {
            sqlite3_close_v2(db)
            throw IndexError.database(message: "cannot register the docent tokenizer (\(rc))")
        }
    }

    deinit {
        for statement in snippetStatements?.all ?? [] { sqlite3_finalize(statement) }
        if let (insert, select, clear) = matchStatements { for statement in [insert, select, clear] { sqlite3_finalize(statement) } }
        sqlite3_close_v2(db)
    }

    /// A field's weight in a PostgreSQL `tsvector` (A the highest).
    public enum Weight: Int32, Sendable { case a = 3, b = 2, c = 1, d = 0 }

    /// The words of `fields`, in order (positions numbered on from one to the next), as a
    /// PostgreSQL `tsvector` in its binary form (`docent_tsvector`, tsvector.c).
    public func vector(_ fields: [(text: String, weight: Weight)]) throws(IndexError) -> [UInt8] {
        let result: Result<[UInt8], IndexError> = Self.withUTF8(fields.map(\.text)) { buffers in
            var pointers = buffers.map { $0.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) } }
            var lengths = buffers.map { Int32($0.count) }
            var weights = fields.map(\.weight.rawValue)
            var out: UnsafeMutablePointer<UInt8>?
            var length = 0
            let rc = docent_tsvector(UnsafeMutableRawPointer(db), &pointers, &lengths, &weights, Int32(fields.count), &out, &length)
            defer { free(out) }
            guard rc == SQLITE_OK, let out else { return .failure(IndexError.database(message: "cannot make a text's words (\(rc))")) }
            return .success(Array(UnsafeBufferPointer(start: out, count: length)))
        }
        return try result.get()
    }

    /// Each string's UTF-8 bytes, all at once, for `body`.
    private static func withUTF8<T>(_ strings: [String], _ body: ([UnsafeBufferPointer<UInt8>]) -> T) -> T {
        let strings = strings.map { string in
            var string = string
            string.makeContiguousUTF8()
            return string
        }
        func nest(_ i: Int, _ done: [UnsafeBufferPointer<UInt8>]) -> T {
            guard i < strings.count else { return body(done) }
            return strings[i].utf8.withContiguousStorageIfAvailable { nest(i + 1, done + [$0]) }
                ?? ContiguousArray(strings[i].utf8).withUnsafeBufferPointer { nest(i + 1, done + [$0]) }
        }
        return nest(0, [])
    }

    /// The tokens the index makes of `word` in a query (stemmed, folded; a CJK run as
    /// bigrams), with FTS5's prefix flag when the word is a prefix.
    public func tokens(of word: String, prefix: Bool = false) -> [String] {
        let capacity = word.utf8.count * 4 + 64
        var buffer = [CChar](repeating: 0, count: capacity)
        let length = docent_query_tokens(UnsafeMutableRawPointer(db), word, Int32(word.utf8.count), prefix ? 1 : 0, &buffer, Int32(capacity))
        guard length > 0 else { return [] }
        return buffer.prefix(Int(length)).withUnsafeBytes { bytes in
            bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// A row of another store, for a snippet: its name, title and metadata, and as much of its
    /// text and identifier parts as the caller fetched.
    public struct SnippetSource: Sendable {
        public var id: Int64, name: String, title: String?, metadata: String?, body: String, parts: String
        public init(id: Int64, name: String, title: String?, metadata: String?, body: String, parts: String) {
            (self.id, self.name, self.title, self.metadata, self.body, self.parts) = (id, name, title, metadata, body, parts)
        }
    }

    /// Each row's snippet as the SQLite index makes it (`docent_snippet`: the best fragment of
    /// the text, matches between \u{2} and \u{3}); a row whose given text does not hold the
    /// match gets none (the caller shows its start).
    public func snippets(_ sources: [SnippetSource], match: FTSExpression) throws(IndexError) -> [Int64: String] {
        let statements: SnippetStatements
        if let prepared = snippetStatements { statements = prepared } else { statements = try prepareSnippets() }
        snippetStatements = statements
        let (files, texts, fts, select) = (statements.files, statements.texts, statements.fts, statements.select)
        for clear in statements.clear { try step(clear) }
        for source in sources {
            // A stored text of method 0 (StoredText): one zero byte, then the text.
            try step(files, source.id, [.text(source.name), .text(source.title), .text(source.metadata)])
            try step(texts, source.id, [.blob(source.body), .blob(source.parts)])
            try step(fts, source.id, [.text(source.name), .text(source.title ?? ""), .text(source.body), .text(source.metadata ?? ""),
                                      .text(source.parts)])
        }
        sqlite3_reset(select)
        bind(select, 1, .text(match.matchString))
        var out: [Int64: String] = [:]
        var rc: Int32
        while true {
            rc = sqlite3_step(select)
            guard rc == SQLITE_ROW else { break }
            if let text = sqlite3_column_text(select, 1) { out[sqlite3_column_int64(select, 0)] = String(cString: text) }
        }
        sqlite3_reset(select)
        guard rc == SQLITE_DONE else { throw failure("cannot make snippets") }
        return out
    }

    /// Every match of `expression` in `text` as the index matches it — stems, prefixes,
    /// phrases, CJK bigrams — as ranges of its UTF-8 bytes, in order, overlapping ones joined
    /// (`docent_matches`, matches.c, over an in-memory FTS5 table with the index's tokenizer).
    /// Give it `FTSExpression.highlighted`: any of the words asked for, in one stretch of text.
    public func matches(in text: String, of expression: FTSExpression) throws(IndexError) -> [Range<Int>] {
        let statements: (insert: OpaquePointer, select: OpaquePointer, clear: OpaquePointer)
        if let prepared = matchStatements { statements = prepared } else {
            let schema = "CREATE VIRTUAL TABLE reader USING fts5(body, tokenize = 'docent porter unicode61 remove_diacritics 2')"
            guard sqlite3_exec(db, schema, nil, nil, nil) == SQLITE_OK else { throw failure("cannot make the reader's table") }
            statements = (try prepare("INSERT INTO reader (rowid, body) VALUES (1, ?2)", for: "the reader"),
                          try prepare("SELECT docent_matches(reader, 0) FROM reader WHERE reader MATCH ?1", for: "the reader"),
                          try prepare("DELETE FROM reader", for: "the reader"))
            matchStatements = statements
        }
        try step(statements.clear)
        try step(statements.insert, nil, [.text(text)])
        defer { sqlite3_reset(statements.select) }
        sqlite3_reset(statements.select)
        bind(statements.select, 1, .text(expression.matchString))
        let rc = sqlite3_step(statements.select)
        guard rc == SQLITE_ROW else {
            if rc == SQLITE_DONE { return [] }
            throw failure("cannot find the matches")
        }
        let count = Int(sqlite3_column_bytes(statements.select, 0)) / MemoryLayout<Int32>.size
        guard count >= 2, let blob = sqlite3_column_blob(statements.select, 0) else { return [] }
        let numbers = UnsafeBufferPointer(start: blob.assumingMemoryBound(to: Int32.self), count: count)
        var ranges: [Range<Int>] = []
        for i in stride(from: 0, to: count - 1, by: 2) {
            let range = Int(numbers[i])..<Int(numbers[i + 1])
            if let last = ranges.last, range.lowerBound <= last.upperBound {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
        return ranges
    }

    private enum Value {
        case text(String?)
        /// A stored text of method 0: a zero byte, then the text's bytes.
        case blob(String)
    }

    private func prepareSnippets() throws(IndexError) -> SnippetStatements {
        // The tables docent_snippet reads, as the SQLite index names them.
        let schema = """
            CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT NOT NULL, title TEXT, metadata TEXT);
            CREATE TABLE texts (id INTEGER PRIMARY KEY, body BLOB NOT NULL, parts BLOB NOT NULL);
            CREATE VIRTUAL TABLE files_fts USING fts5(name, title, body, meta, parts, tokenize = 'docent porter unicode61 remove_diacritics 2');
            """
        guard sqlite3_exec(db, schema, nil, nil, nil) == SQLITE_OK else { throw failure("cannot make the snippet tables") }
        func prepare(_ sql: String) throws(IndexError) -> OpaquePointer { try self.prepare(sql, for: "snippets") }
        return SnippetStatements(
            files: try prepare("INSERT INTO files (id, name, title, metadata) VALUES (?1, ?2, ?3, ?4)"),
            texts: try prepare("INSERT INTO texts (id, body, parts) VALUES (?1, ?2, ?3)"),
            fts: try prepare("INSERT INTO files_fts (rowid, name, title, body, meta, parts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
            select: try prepare("SELECT rowid, docent_snippet(files_fts) FROM files_fts WHERE files_fts MATCH ?1"),
            clear: [try prepare("DELETE FROM files"), try prepare("DELETE FROM texts"), try prepare("DELETE FROM files_fts")])
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Value) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch value {
        case .text(nil): sqlite3_bind_null(statement, index)
        case .text(let text?): sqlite3_bind_text(statement, index, text, -1, transient)
        case .blob(let text):
            var bytes = [UInt8](repeating: 0, count: 1)
            bytes.append(contentsOf: text.utf8)
            sqlite3_bind_blob(statement, index, bytes, Int32(bytes.count), transient)
        }
    }

    /// Runs `statement` once, with `id` as ?1 and `values` after it.
    private func step(_ statement: OpaquePointer, _ id: Int64? = nil, _ values: [Value] = []) throws(IndexError) {
        sqlite3_reset(statement)
        if let id { sqlite3_bind_int64(statement, 1, id) }
        for (i, value) in values.enumerated() { bind(statement, Int32(i + 2), value) }
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard rc == SQLITE_DONE else { throw failure("cannot fill the snippet tables") }
    }

    /// A statement on the connection, or an error naming what it was for.
    private func prepare(_ sql: String, for purpose: String) throws(IndexError) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("cannot prepare the statements of \(purpose)")
        }
        return statement
    }

    private func failure(_ what: String) -> IndexError {
        IndexError.database(message: what + ": " + String(cString: sqlite3_errmsg(db)))
    }
}
