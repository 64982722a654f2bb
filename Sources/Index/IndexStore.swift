public import Foundation

/// Where the index's rows live: what the indexer, the watcher and the searches ask of it.
///
/// Two stores implement it: `FileIndex` (SQLite with FTS5 in one file, the default, one
/// machine) and `PostgresIndex` (a PostgreSQL database shared by several hosts, each writing
/// its own rows). A store's reads and writes concern its own host's rows, except the
/// searches (`search`, `file(id:)`, `statistics`), which span every host.
public protocol IndexStore: AnyObject, Sendable {
    /// Where this machine keeps the files beside the index (the watch lock, the watcher's
    /// status, the roots): for SQLite the database itself, for PostgreSQL a name in Docent's
    /// data directory standing for the database and host.
    var path: String { get }
    /// What the store is, for messages: a path, or a PostgreSQL address without its password.
    var displayName: String { get }
    /// The host this store writes for; rows of other hosts are shown with their host's name.
    var host: String { get }

    // MARK: Rows the indexer writes
    /// `file` with what its write will need made ahead, on the thread that read the file
    /// (see `StorageForm`); `upsert` then only stores it.
    func prepareForWrite(_ file: IndexedFile) -> IndexedFile
    func upsert(_ files: [IndexedFile]) throws(IndexError)
    @discardableResult func remove(_ paths: [[UInt8]]) throws(IndexError) -> Int
    func move(from old: [UInt8], to new: [UInt8]) throws(IndexError)
    @discardableResult func removeTree(_ path: [UInt8]) throws(IndexError) -> Int
    @discardableResult func moveTree(from: [UInt8], to: [UInt8]) throws(IndexError) -> Int
    func updateSignature(_ path: [UInt8], _ signature: FileSignature) throws(IndexError)
    func signature(at path: [UInt8]) throws(IndexError) -> FileSignature?
    /// The stored signatures of `paths`, in their order (nil: no row), read at once.
    func signatures(at paths: [[UInt8]]) throws(IndexError) -> [FileSignature?]
    func signatures(in directory: [UInt8]) throws(IndexError) -> [PathKey: FileSignature]
    func rows(device: Int64, inode: Int64) throws(IndexError) -> [(path: [UInt8], signature: FileSignature)]
    func directories(under root: [UInt8]) throws(IndexError) -> [[UInt8]]
    @discardableResult func removeContents(of directories: [[UInt8]]) throws(IndexError) -> Int
    /// How many files this host has in the index.
    func count() throws(IndexError) -> Int

    // MARK: Roots, readers and types
    func addRoots(_ paths: [[UInt8]]) throws(IndexError)
    func roots() throws(IndexError) -> [(path: [UInt8], lastIndexed: Date?)]
    func markIndexed(_ root: [UInt8]) throws(IndexError)
    func readerFingerprints() throws(IndexError) -> [String: String]?
    func contentTypes() throws(IndexError) -> [String]
    @discardableResult
    func rereadRows(documentTypes: Set<String>, contentTypes: Set<String>, fingerprints: [String: String]) throws(IndexError) -> Int
    func classifierFingerprint() throws(IndexError) -> String?
    /// Up to `limit` rows' paths and content types, in the order of their paths, after `path`
    /// (from the first when nil): a million rows are walked a page at a time, never held at once.
    func typedFiles(after path: [UInt8]?, limit: Int) throws(IndexError) -> [(path: [UInt8], contentType: String)]
    @discardableResult func rereadRows(paths: [[UInt8]], classifierFingerprint fingerprint: String) throws(IndexError) -> Int
    func recordTypeAncestry(_ ancestry: [String: [String]]) throws(IndexError)
    func contentTypesWithoutAncestry() throws(IndexError) -> [String]
    func typesWithAncestry(among types: Set<String>) throws(IndexError) -> Set<String>
    func contentTypes(conformingTo identifier: String) throws(IndexError) -> Set<String>?

    // MARK: Upkeep
    /// What a store needs after a run that wrote many rows (a cold index above all): SQLite
    /// merges its inverted index into one segment, PostgreSQL gathers statistics and folds its
    /// GIN index's pending list in. True when it did something.
    @discardableResult func upkeepAfterLargeRun() throws(IndexError) -> Bool
    /// What a store needs after any run that wrote (after `upkeepAfterLargeRun` when both
    /// apply; a watcher leaves it to `tidyWhileIdle`): SQLite makes its ranked lists again when
    /// they fell behind (`RankedLists`); by default nothing.
    func upkeepAfterRun() throws(IndexError)
    /// Called with true before a run fills an index that held no rows (a cold index, a rebuild)
    /// and with false after it: a store may then commit without waiting for each commit to
    /// reach the disk, and must make everything durable when the run ends. Nothing is at
    /// stake meanwhile that the run would not make again: a crash of the machine (not of
    /// Docent) may leave a damaged index, which is found and rebuilt.
    func fillingEmptyIndex(_ filling: Bool) throws(IndexError)
    /// Called with true by a process that will write for a long time (`docent watch`), and
    /// with false when it stops: a store may meanwhile do its upkeep of committed writes
    /// (SQLite's checkpoints) beside the writer, not in it.
    func checkpointInBackground(_ enabled: Bool) throws(IndexError)
    /// One small step of upkeep for a long-running writer (`docent watch`) to take when
    /// nothing waits to be written, after it wrote: true while more remains. SQLite merges
    /// a few of FTS5's segments (`FileIndex.mergeSegmentsStep`); by default nothing.
    func tidyWhileIdle() throws(IndexError) -> Bool
    func close() throws(IndexError)

    // MARK: Searches (every host's rows)
    func search(_ request: SearchRequest) throws(IndexError) -> [SearchHit]
    /// How many files match `request`, its limit and offset aside.
    func count(_ request: SearchRequest) throws(IndexError) -> Int
    func suggestions(for match: FTSExpression?) throws(IndexError) -> [SpellingSuggestion]
    /// `match` as the store runs it: words typed apart that it holds joined match the joining
    /// too (`FTSExpression.compounded`), so a reader marks what the search found.
    func compounded(_ match: FTSExpression?) throws(IndexError) -> FTSExpression?
    func statistics() throws(IndexError) -> IndexStatistics
    func filesWithErrors(limit: Int?) throws(IndexError) -> [IndexedFile]
    /// The row with `id`, without its text, and the host it belongs to.
    func file(id: Int64) throws(IndexError) -> IndexedFile?
    /// The row for `path` on this host, without its text.
    func file(at path: [UInt8]) throws(IndexError) -> IndexedFile?
    /// The stored text of row `id` (for a preview of another host's file), at most `limit` characters.
    func storedText(id: Int64, limit: Int) throws(IndexError) -> String?
    /// The row of `path` on `host`, with its stored text (at most `textLimit` characters): what
    /// a preview of another host's file shows.
    func storedFile(host: String, path: [UInt8], textLimit: Int) throws(IndexError) -> (file: IndexedFile, text: String)?
    /// Among the rows `ids`, those of identical content (the same size and stored text),
    /// each group in the order of `ids`; rows alone in theirs are left out.
    func identicalGroups(among ids: [Int64]) throws(IndexError) -> [[Int64]]
}

extension IndexStore {
    /// Nothing: the store keeps itself tidy as it writes (PostgreSQL's autovacuum cleans the
    /// GIN index's pending list).
    public func tidyWhileIdle() throws(IndexError) -> Bool { false }

    /// Nothing: the store keeps nothing that falls behind as rows are written.
    public func upkeepAfterRun() throws(IndexError) {}

    /// By default nothing: the store makes what it writes when it writes it (PostgreSQL).
    public func prepareForWrite(_ file: IndexedFile) -> IndexedFile { file }

    /// By default nothing: a store whose server decides when commits reach the disk
    /// (PostgreSQL, where a host's empty index is not an empty database: other hosts' rows share it).
    public func fillingEmptyIndex(_ filling: Bool) throws(IndexError) {}

    /// By default nothing: the server checkpoints (PostgreSQL).
    public func checkpointInBackground(_ enabled: Bool) throws(IndexError) {}

    /// By default one `signature(at:)` a path.
    public func signatures(at paths: [[UInt8]]) throws(IndexError) -> [FileSignature?] {
        try paths.map { path throws(IndexError) in try signature(at: path) }
    }

    /// By default none found (a store that cannot compare its stored texts cheaply).
    public func identicalGroups(among ids: [Int64]) throws(IndexError) -> [[Int64]] { [] }

    /// The lock a watcher holds on this index.
    public var lockPath: String { path + ".lock" }
    /// Where a running watcher publishes its state.
    public var watchStatusPath: String { path + ".watch.json" }
}

/// This machine's name, as rows record it: `gethostname`'s.
public enum LocalHost {
    public static let name: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }()
}
