import FileAccess
import Foundation
public import Index

/// The index in a PostgreSQL database, shared by several hosts: each `docent watch` writes
/// its own host's rows (a host's reconcile never touches another's), and every search spans
/// all of them. Full text is a `tsvector` per file with a GIN index; the query language is
/// translated to `tsquery` (`TSQuery`).
///
/// One connection, used under a lock: the indexer writes from one thread, in one
/// transaction per batch. A statement that loses the server (a restart, a dropped network)
/// is tried again on a new connection for up to `reconnectWindow` seconds — a transaction
/// cut off left nothing behind, and an upsert keyed by host and path cannot make a second
/// row — then fails with `IndexError.unreachable`, which `docent watch` waits out, its
/// changes kept.
public final class PostgresIndex: IndexStore {
    public let host: String
    public let path: String
    public let displayName: String
    /// How long a statement waits for the server to come back before failing: a minute for
    /// the indexer and the watcher, nothing for a search (a person is waiting).
    public let reconnectWindow: Double
    private let address: String
    /// Server settings every connection starts with (`searching`).
    private let settings: [String: String]
    /// Connections, each under its lock: the first for everything, the others for the
    /// halves of a large batch written at once (`upsert`), connected when first needed.
    private let lanes: [Locked<Connection?>]
    /// How many connections write a large batch: the server turns texts into words on one core
    /// per connection, and a cold index waited on that one core.
    static let writers = 2

    /// Connects to `address` (a `postgresql://` URI or libpq key=value string: credentials
    /// from libpq's own places, never the command line) and brings the schema up to date.
    /// `stateDirectory` holds this host's files beside the index (the watch lock, status).
    ///
    /// `searching`: a store a search process opens and closes. Its connections start with the
    /// planner kept off whole-table reads (`search`), in the startup packet, not by a `SET`
    /// and `RESET` around each search: two round trips less, which a distant server makes
    /// count.
    public init(address: String, host: String = LocalHost.name, stateDirectory: String, reconnectWindow: Double = 60,
                searching: Bool = false) throws(IndexError) {
        self.address = address
        settings = searching ? Self.searchSettings : [:]
        self.host = host
        self.reconnectWindow = reconnectWindow
        displayName = Connection.redacted(address)
        let key = Self.stateKey(Connection.redacted(address) + "\n" + host)
        path = stateDirectory + "/postgresql-" + key
        do { try PrivateStorage.makeDirectory(stateDirectory, tightenExisting: false) } catch {
            throw IndexError.cannotOpen(path: stateDirectory, message: "cannot make its directory: \(error)")
        }
        var delay = 0.1
        let deadline = Date().addingTimeInterval(reconnectWindow)
        while true {
            do {
                let first: Connection? = try Connection(address: address, settings: settings)
                lanes = [Locked(first)] + (1..<Self.writers).map { _ in Locked<Connection?>(nil) }
                break
            } catch {
                guard case .unreachable = error, Date() < deadline else { throw error }
                usleep(useconds_t(delay * 1e6))
                delay = min(delay * 2, 2)
            }
        }
        try migrate()
    }

    /// Whether `text` names a PostgreSQL database rather than a file.
    public static func isAddress(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// A short stable name for the address and host (FNV-1a, hex): the state files' names.
    static func stateKey(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    // MARK: Running statements

    /// Runs `body` on the connection, connecting again when the server went away; with
    /// `transaction`, between BEGIN and COMMIT. A lost server is waited for up to
    /// `reconnectWindow` seconds.
    @discardableResult
    func run<T>(transaction: Bool = false, lane: Int = 0, _ body: (Connection) throws(IndexError) -> T) throws(IndexError) -> T {
        let deadline = Date().addingTimeInterval(reconnectWindow)
        var delay = 0.1
        while true {
            let outcome = lanes[lane].withLock { (slot: inout Connection?) -> Result<T, IndexError> in
                do throws(IndexError) {
                    if slot == nil { slot = try Connection(address: address, settings: settings) }
                    let connection = slot!
                    if !connection.isUp { try connection.reset() }
                    guard transaction else { return .success(try body(connection)) }
                    try connection.execute("BEGIN")
                    do throws(IndexError) {
                        let result = try body(connection)
                        // Heard at the commit by every `search --follow` (ChangeListener).
                        try connection.execute("SELECT pg_notify('docent_changes', $1)", [.text(host)])
                        try connection.execute("COMMIT")
                        return .success(result)
                    } catch {
                        if connection.isUp { _ = try? connection.execute("ROLLBACK") }
                        throw error
                    }
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let value): return value
            case .failure(let error):
                guard Self.isRetryable(error), Date() < deadline else { throw error }
                usleep(useconds_t(delay * 1e6))
                delay = min(delay * 2, 2)
            }
        }
    }

    /// A lost connection, or two hosts' transactions meeting on a shared row (the type
    /// conformance table): worth the whole transaction again.
    private static func isRetryable(_ error: IndexError) -> Bool {
        switch error {
        case .unreachable: true
        case .database(let message): message.hasSuffix("(SQLSTATE 40001)") || message.hasSuffix("(SQLSTATE 40P01)")
            || message.hasSuffix("(SQLSTATE 23505)")
        default: false
        }
    }

    /// A listener for the commits of every host (`search --follow`).
    public func changes(settleMilliseconds: Int32 = 10) throws(IndexError) -> ChangeListener {
        try ChangeListener(address: address, settle: settleMilliseconds)
    }

    public func close() throws(IndexError) {
        for lane in lanes { lane.withLock { $0 = nil } }
    }

    // MARK: Rows the indexer writes

    public func upsert(_ files: [IndexedFile]) throws(IndexError) {
        var last: [[UInt8]: Int] = [:]
        for (i, file) in files.enumerated() { last[file.path] = i }
        let files = files.enumerated().filter { last[$0.element.path] == $0.offset }.map(\.element)
        guard !files.isEmpty else { return }
        // A large batch is written in halves at once, each in its own transaction on its own
        // connection: a half that fails leaves the other written, which is harmless (each row
        // is keyed by host and path, and a file whose row is missing is read again).
        let slices = files.count >= 16 ? (0..<Self.writers).map { w in stride(from: w, to: files.count, by: Self.writers).map { files[$0] } }
            : [files]
        let failures = Locked<[IndexError]>([])
        OwnThreads.concurrentPerform(iterations: slices.count) { [slices] lane in
            do throws(IndexError) { try self.write(slices[lane], lane: lane) } catch { failures.withLock { $0.append(error) } }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    private func write(_ files: [IndexedFile], lane: Int) throws(IndexError) {
        // Each file's words are made here, by the SQLite index's own tokenizer, and sent as
        // tsvectors (TextWords): the server only stores them.
        let words = try TextWords()
        var rows: [(file: IndexedFile, parts: String, fts: [UInt8], rank: [UInt8])] = []
        for file in files {
            let parts = IdentifierParts.split(file.name, file.text)
            let (fts, rank) = try Self.vectors(words, name: file.name, title: file.title, metadata: file.metadata, body: file.text, parts: parts,
                                               parent: file.parent, headings: file.headings)
            rows.append((file, parts, fts, rank))
        }
        let now = Date().timeIntervalSince1970
        try run(transaction: true, lane: lane) { connection throws(IndexError) in
            for (file, parts, fts, rank) in rows {
                try connection.execute("""
                    INSERT INTO docent_files (host, path, parent, name, device, inode, size, modified, changed, content_type,
                                              document_type, title, metadata, evidence, error_kind, error_message, indexed_at,
                                              body, parts, fts, rank_fts, head, headings)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
                    ON CONFLICT (host, path) DO UPDATE SET
                        parent = excluded.parent, name = excluded.name, device = excluded.device, inode = excluded.inode,
                        size = excluded.size, modified = excluded.modified, changed = excluded.changed,
                        content_type = excluded.content_type, document_type = excluded.document_type, title = excluded.title,
                        metadata = excluded.metadata, evidence = excluded.evidence, error_kind = excluded.error_kind,
                        error_message = excluded.error_message, indexed_at = excluded.indexed_at, body = excluded.body,
                        parts = excluded.parts, fts = excluded.fts, rank_fts = excluded.rank_fts, head = excluded.head,
                        headings = excluded.headings
                    """, [
                        .text(host), .bytes(file.path), .bytes(file.parent), .text(file.name), .int(file.device), .int(file.inode),
                        .int(file.size), .int(file.modified), .int(file.changed), .text(file.contentType), SQLValue(file.documentType),
                        SQLValue(file.title), SQLValue(file.metadata), SQLValue(file.evidence), SQLValue(file.errorKind),
                        SQLValue(file.errorMessage), .double(now), .text(file.text), .text(parts), .bytes(fts), .bytes(rank),
                        SQLValue(Self.head(of: file.text)), SQLValue(file.headings),
                    ])
            }
        }
    }

    @discardableResult
    public func remove(_ paths: [[UInt8]]) throws(IndexError) -> Int {
        guard !paths.isEmpty else { return 0 }
        return try run(transaction: true) { connection throws(IndexError) in
            var removed = 0
            for path in paths {
                removed += try connection.execute("DELETE FROM docent_files WHERE host = $1 AND path = $2", [.text(host), .bytes(path)]).changed
            }
            return removed
        }
    }

    public func move(from old: [UInt8], to new: [UInt8]) throws(IndexError) {
        try run(transaction: true) { connection throws(IndexError) in
            let found = try connection.execute("SELECT id FROM docent_files WHERE host = $1 AND path = $2", [.text(host), .bytes(old)])
            guard found.count == 1 else { return }
            try connection.execute("DELETE FROM docent_files WHERE host = $1 AND path = $2", [.text(host), .bytes(new)])
            try Self.rename(connection, id: found.int(0, 0), to: new, words: try TextWords())
        }
    }

    /// A file's two vectors, in the binary form the server reads (TextWords.vector): `fts`,
    /// all its words — the name weighed A, the title B, the metadata and the headings C, the
    /// text, its identifier parts and its folders' names (`FolderWords`, of its parent) D —
    /// and `rank_fts`, the same over the text's first 1,024 characters alone, what `ts_rank` reads;
    /// the fields in the order of their weights, as the search's bounds need (`describedBound`).
    static func vectors(_ words: TextWords, name: String, title: String?, metadata: String?, body: String,
                        parts: String, parent: [UInt8], headings: String?) throws(IndexError) -> (fts: [UInt8], rank: [UInt8]) {
        let folders = FolderWords.words(ofParent: parent)
        let head: [(text: String, weight: TextWords.Weight)] = [(name, .a), (title ?? "", .b), (metadata ?? "", .c), (headings ?? "", .c), (folders, .d)]
        return (try words.vector(head + [(body, .d), (parts, .d)]), try words.vector(head + [(rankedStart(of: body), .d)]))
    }

    /// The text's first `rankedCharacters`, cut after its last ASCII separator: the tokens of
    /// such a start are the text's first tokens (tokenizer.c), so every word of `rank_fts` is
    /// in `fts` too, which the ranked tier of a search relies on (a cut word, or a CJK run's
    /// last character, would be a token of the start alone). Empty when it has no separator.
    static func rankedStart(of body: String) -> String {
        let end = body.unicodeScalars.index(body.startIndex, offsetBy: rankedCharacters, limitedBy: body.endIndex) ?? body.endIndex
        guard end != body.endIndex else { return body }
        let cut = body.unicodeScalars[..<end].lastIndex { $0.isASCII && !($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
        return cut.map { String(body[..<$0]) } ?? ""
    }

    /// The start of a text longer than `headCharacters`, kept apart for snippets (`head`);
    /// nil for a shorter one (its snippet reads `body` itself).
    static func head(of text: String) -> String? {
        let end = text.unicodeScalars.index(text.startIndex, offsetBy: headCharacters, limitedBy: text.endIndex) ?? text.endIndex
        return end == text.endIndex ? nil : String(text[..<end])
    }

    /// How much of a long text `head` holds: what a search reads for a snippet
    /// (`PostgresIndex.snippetWindow`).
    static let headCharacters = 32_768

    /// How much of a text `rank_fts` holds: ranking a common word read every match's whole
    /// vector out of TOAST (95 ms for 6,414 files on the benchmark corpus; 20-24 ms over 1 KB).
    static let rankedCharacters = 1_024

    /// Moves row `id` to `new`; when its name or its folders' names change, its words are
    /// made again (the name's words are weighed apart, its identifier parts come from the name
    /// too, and the folders' are words of the row).
    private static func rename(_ connection: Connection, id: Int64, to new: [UInt8], words: TextWords) throws(IndexError) {
        let (name, parent) = (IndexedFile.name(of: new), IndexedFile.parent(of: new))
        let old = try connection.execute("SELECT name, parent FROM docent_files WHERE id = $1", [.int(id)])
        guard old.count == 1 else { return }
        guard old.string(0, 0) != name || FolderWords.words(ofParent: old.bytes(0, 1)) != FolderWords.words(ofParent: parent) else {
            try connection.execute("UPDATE docent_files SET path = $2, parent = $3 WHERE id = $1", [.int(id), .bytes(new), .bytes(parent)])
            return
        }
        let row = try connection.execute("SELECT title, metadata, body, headings FROM docent_files WHERE id = $1", [.int(id)])
        let body = row.string(0, 2) ?? ""
        let parts = IdentifierParts.split(name, body)
        let (fts, rank) = try vectors(words, name: name, title: row.string(0, 0), metadata: row.string(0, 1), body: body, parts: parts,
                                      parent: parent, headings: row.string(0, 3))
        try connection.execute("""
            UPDATE docent_files SET path = $2, parent = $3, name = $4, parts = $5, fts = $6, rank_fts = $7 WHERE id = $1
            """, [.int(id), .bytes(new), .bytes(parent), .text(name), .text(parts), .bytes(fts), .bytes(rank)])
    }

    /// Makes every row's vectors (and `head`) again, a batch at a time (migration v3: the
    /// words were the server's until then; v5: the folders' names joined them).
    static func makeWordsAgain(_ connection: Connection) throws(IndexError) {
        let words = try TextWords()
        var last: Int64 = 0
        while true {
            let rows = try connection.execute("""
                SELECT id, name, title, metadata, body, parts, parent, headings FROM docent_files WHERE id > $1 ORDER BY id LIMIT 200
                """, [.int(last)])
            guard rows.count > 0 else { return }
            for row in 0..<rows.count {
                last = rows.int(row, 0)
                let (fts, rank) = try vectors(words, name: rows.string(row, 1) ?? "", title: rows.string(row, 2), metadata: rows.string(row, 3),
                                              body: rows.string(row, 4) ?? "", parts: rows.string(row, 5) ?? "", parent: rows.bytes(row, 6),
                                              headings: rows.string(row, 7))
                try connection.execute("UPDATE docent_files SET fts = $2, rank_fts = $3, head = $4 WHERE id = $1",
                                       [.int(last), .bytes(fts), .bytes(rank), SQLValue(head(of: rows.string(row, 4) ?? ""))])
            }
        }
    }

    @discardableResult
    public func removeTree(_ path: [UInt8]) throws(IndexError) -> Int {
        let (lower, upper) = FileIndex.subtreeRange(path)
        return try run(transaction: true) { connection throws(IndexError) in
            try connection.execute("""
                DELETE FROM docent_files WHERE host = $1 AND (path = $2 OR (path >= $3 AND path < $4))
                """, [.text(host), .bytes(path), .bytes(lower), .bytes(upper)]).changed
        }
    }

    @discardableResult
    public func moveTree(from: [UInt8], to: [UInt8]) throws(IndexError) -> Int {
        let (lower, upper) = FileIndex.subtreeRange(from)
        let words = try TextWords()
        return try run(transaction: true) { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT id, path FROM docent_files WHERE host = $1 AND (path = $2 OR (path >= $3 AND path < $4))
                """, [.text(host), .bytes(from), .bytes(lower), .bytes(upper)])
            for row in 0..<rows.count {
                let new = to + rows.bytes(row, 1).dropFirst(from.count)
                try connection.execute("DELETE FROM docent_files WHERE host = $1 AND path = $2 AND id != $3",
                                       [.text(host), .bytes(new), .int(rows.int(row, 0))])
                try Self.rename(connection, id: rows.int(row, 0), to: new, words: words)
            }
            return rows.count
        }
    }

    public func updateSignature(_ path: [UInt8], _ signature: FileSignature) throws(IndexError) {
        try run(transaction: true) { connection throws(IndexError) in
            try connection.execute("""
                UPDATE docent_files SET device = $3, inode = $4, size = $5, modified = $6, changed = $7 WHERE host = $1 AND path = $2
                """, [.text(host), .bytes(path), .int(signature.device), .int(signature.inode), .int(signature.size),
                      .int(signature.modified), .int(signature.changed)])
        }
    }

    public func signature(at path: [UInt8]) throws(IndexError) -> FileSignature? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT device, inode, size, modified, changed FROM docent_files WHERE host = $1 AND path = $2
                """, [.text(host), .bytes(path)])
            return rows.count == 0 ? nil : Self.signature(rows, 0, from: 0)
        }
    }

    public func signatures(in directory: [UInt8]) throws(IndexError) -> [PathKey: FileSignature] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT path, device, inode, size, modified, changed FROM docent_files WHERE host = $1 AND (parent = $2 OR path = $2)
                """, [.text(host), .bytes(directory)])
            var out: [PathKey: FileSignature] = [:]
            for row in 0..<rows.count { out[PathKey(rows.bytes(row, 0))] = Self.signature(rows, row, from: 1) }
            return out
        }
    }

    public func rows(device: Int64, inode: Int64) throws(IndexError) -> [(path: [UInt8], signature: FileSignature)] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT path, device, inode, size, modified, changed FROM docent_files WHERE host = $1 AND device = $2 AND inode = $3
                """, [.text(host), .int(device), .int(inode)])
            return (0..<rows.count).map { (rows.bytes($0, 0), Self.signature(rows, $0, from: 1)) }
        }
    }

    public func directories(under root: [UInt8]) throws(IndexError) -> [[UInt8]] {
        let (lower, upper) = FileIndex.subtreeRange(root)
        return try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT DISTINCT parent FROM docent_files WHERE host = $1 AND ((parent >= $2 AND parent < $3) OR parent = $4)
                """, [.text(host), .bytes(lower), .bytes(upper), .bytes(root)])
            return (0..<rows.count).map { rows.bytes($0, 0) }
        }
    }

    @discardableResult
    public func removeContents(of directories: [[UInt8]]) throws(IndexError) -> Int {
        guard !directories.isEmpty else { return 0 }
        return try run(transaction: true) { connection throws(IndexError) in
            var removed = 0
            for directory in directories {
                removed += try connection.execute("DELETE FROM docent_files WHERE host = $1 AND parent = $2",
                                                  [.text(host), .bytes(directory)]).changed
            }
            return removed
        }
    }

    public func count() throws(IndexError) -> Int {
        try run { connection throws(IndexError) in
            Int(try connection.execute("SELECT count(*) FROM docent_files WHERE host = $1", [.text(host)]).int(0, 0))
        }
    }

    static func signature(_ rows: Connection.Result, _ row: Int, from column: Int) -> FileSignature {
        FileSignature(device: rows.int(row, column), inode: rows.int(row, column + 1), size: rows.int(row, column + 2),
                      modified: rows.int(row, column + 3), changed: rows.int(row, column + 4))
    }

}
