import CSnippet
import Foundation
import GRDB

/// The SQLite index's words outside it: the `docent` tokenizer (Sources/CSnippet/tokenizer.c:
/// Porter stems, accents folded, CJK bigrams) and `docent_snippet` on an in-memory SQLite
/// connection, so that another store (PostgreSQL) finds the same words, ranks the same
/// fields and shows the same snippets as the SQLite file.
///
/// One connection: use an instance from one thread at a time.
public final class TextWords {
    private let queue: DatabaseQueue
    private var snippetTables = false

    public init() throws(IndexError) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            let rc = docent_register_search_functions(UnsafeMutableRawPointer(db.sqliteConnection))
            if rc != 0 { throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot register the docent tokenizer") }
        }
        do { queue = try DatabaseQueue(configuration: configuration) } catch {
            throw IndexError.database(message: "cannot open the in-memory tokenizer: \(error)")
        }
    }

    /// A field's weight in a PostgreSQL `tsvector` (A the highest).
    public enum Weight: Int32, Sendable { case a = 3, b = 2, c = 1, d = 0 }

    /// The words of `fields`, in order (positions numbered on from one to the next), as a
    /// PostgreSQL `tsvector` in its binary form (`docent_tsvector`, tsvector.c).
    public func vector(_ fields: [(text: String, weight: Weight)]) throws(IndexError) -> [UInt8] {
        let outcome: Result<[UInt8], IndexError> = queue.inDatabase { db in
            let connection = UnsafeMutableRawPointer(db.sqliteConnection)
            return Self.withUTF8(fields.map(\.text)) { buffers in
                var pointers = buffers.map { $0.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) } }
                var lengths = buffers.map { Int32($0.count) }
                var weights = fields.map(\.weight.rawValue)
                var out: UnsafeMutablePointer<UInt8>?
                var length = 0
                let rc = docent_tsvector(connection, &pointers, &lengths, &weights, Int32(fields.count), &out, &length)
                defer { free(out) }
                guard rc == 0, let out else { return .failure(IndexError.database(message: "cannot make a text's words (\(rc))")) }
                return .success(Array(UnsafeBufferPointer(start: out, count: length)))
            }
        }
        return try outcome.get()
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
        return queue.inDatabase { db in
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = docent_query_tokens(UnsafeMutableRawPointer(db.sqliteConnection), word, Int32(word.utf8.count),
                                             prefix ? 1 : 0, &buffer, Int32(capacity))
            guard length > 0 else { return [] }
            return buffer.prefix(Int(length)).withUnsafeBytes { bytes in
                bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
            }
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
        do {
            return try queue.inDatabase { db in
                // The tables docent_snippet reads (the SQLite index's `files`, `texts` and
                // `files_fts`), held for this connection's life and emptied for each call.
                if !snippetTables {
                    try db.execute(sql: """
                        CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT NOT NULL, title TEXT, metadata TEXT);
                        CREATE TABLE texts (id INTEGER PRIMARY KEY, body BLOB NOT NULL, parts BLOB NOT NULL);
                        CREATE VIRTUAL TABLE files_fts USING fts5(name, title, body, meta, parts,
                                                                  tokenize = 'docent porter unicode61 remove_diacritics 2');
                        """)
                    snippetTables = true
                }
                try db.execute(sql: "DELETE FROM files; DELETE FROM texts; DELETE FROM files_fts")
                for source in sources {
                    try db.execute(sql: "INSERT INTO files (id, name, title, metadata) VALUES (?, ?, ?, ?)",
                                   arguments: [source.id, source.name, source.title, source.metadata])
                    // A stored text of method 0 (StoredText): one zero byte, then the text.
                    try db.execute(sql: "INSERT INTO texts (id, body, parts) VALUES (?, ?, ?)",
                                   arguments: [source.id, Data([0] + source.body.utf8), Data([0] + source.parts.utf8)])
                    try db.execute(sql: "INSERT INTO files_fts (rowid, name, title, body, meta, parts) VALUES (?, ?, ?, ?, ?, ?)",
                                   arguments: [source.id, source.name, source.title ?? "", source.body, source.metadata ?? "", source.parts])
                }
                var out: [Int64: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT rowid, docent_snippet(files_fts) AS snippet FROM files_fts WHERE files_fts MATCH ?",
                                            arguments: [match.matchString]) {
                    out[row["rowid"]] = row["snippet"]
                }
                return out
            }
        } catch {
            throw IndexError.database(message: "cannot make snippets: \(error)")
        }
    }
}
