import CSQLite
import CSnippet
import FileAccess
public import Foundation
import GRDB
import Synchronization

/// The searchable index: one SQLite database in WAL mode, so searches never wait for the
/// writer, with an FTS5 table over names, titles, text and metadata.
public final class FileIndex: Sendable {
    /// The database file.
    public let path: String
    /// A pool (WAL: readers beside one writer), or for `searching(path:)` one connection.
    let pool: any DatabaseWriter
    /// The thread checkpointing for this index's writer, and its hook's handle (as a number:
    /// a pointer is not `Sendable`), once `checkpointInBackground()` was called.
    let background = Mutex<(checkpoints: BackgroundCheckpoints, hook: UInt?)?>(nil)
    /// The upkeep of the ranked lists of words in many files (`rankedListsStep`).
    let rankedLists = Mutex(RankedLists.Upkeep())

    /// Opens (creating and migrating as needed) the index at `path`.
    ///
    /// - Throws: `IndexError.newerSchema` when a newer Docent made the index, and
    ///   `IndexError.cannotOpen` with SQLite's message otherwise.
    /// The index holds the text of the user's files: it and every file beside it are made
    /// `0600`, and its directory `0700` when Docent makes it (`privateDirectory`: also when it
    /// exists, for Docent's own directory), whatever the umask.
    public init(path: String, privateDirectory: Bool = false) throws(IndexError) {
        self.path = path
        let configuration = Self.configuration()
        do {
            try Self.preparePrivateFiles(path: path, privateDirectory: privateDirectory)
            pool = try Self.openPool(path: path, configuration: configuration)
        } catch let error as DatabaseError where IndexError(error, path: path).isDamage {
            throw IndexError(error, path: path)
        } catch {
            throw IndexError.cannotOpen(path: path, message: "\(error)")
        }
        do {
            let migrator = Self.migrator
            let superseded = try pool.read { try migrator.hasBeenSuperseded($0) }
            if superseded { throw IndexError.newerSchema(path: path) }
            let before = try pool.read { try migrator.appliedIdentifiers($0) }
            if !before.isEmpty, !Set(migrator.migrations).subtracting(before).isDisjoint(with: Self.reindexingMigrations),
               let notice = Self.slowMigrationNotice.withLock({ $0 }) {
                notice("updating the index at \(path) to this version: its words are indexed again from the stored texts, "
                       + "once (about 15 s per 100,000 files; no file is read again)")
            }
            var attempt = 0
            while true {
                do {
                    try migrator.migrate(pool)
                    break
                } catch {
                    // Processes opening a new index at once each see migrations left to run;
                    // the one that loses a race fails on the other's tables. Each migration
                    // commits whole (its schema and its record in one transaction), so the
                    // loser looks again: done, or the winner is still at it and it tries anew.
                    if try pool.read({ try migrator.hasCompletedMigrations($0) }) { break }
                    attempt += 1
                    if attempt >= 50 { throw error }
                    usleep(useconds_t(20_000 + Int.random(in: 0..<30_000)))
                }
            }
            // v3 moved the text out of FTS5: give the pages it left back to the file system.
            // (Best effort: another process may hold the database; the pages are then reused instead.)
            if !before.isEmpty, !before.contains("v3") { try? pool.writeWithoutTransaction { try $0.execute(sql: "VACUUM") } }
        } catch {
            throw IndexError(error, path: path)
        }
    }

    /// The connections' set-up: busy timeout, pragmas, Docent's SQL functions.
    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A checkpoint leaves the write-ahead log at most this long (a cold index writes
            // hundreds of MB through it).
            try db.execute(sql: "PRAGMA journal_size_limit = 67108864")
            // Pages are read with read(), not through a memory mapping: mapped, a search paid
            // a page fault for every page it touched (12% of its time at a million files; the
            // bench corpus's searches the same either way).
            db.add(function: StoredText.inflateFunction)
            db.add(function: StoredText.inflatePrefixFunction)
            db.add(function: StoredText.deflateFunction)
            db.add(function: FolderWords.function)
            let rc = docent_register_search_functions(UnsafeMutableRawPointer(db.sqliteConnection))
            if rc != 0 { throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot register docent_snippet and docent_rank") }
        }
        return configuration
    }

    private init(path: String, searchingWith queue: DatabaseQueue) {
        self.path = path
        pool = queue
    }

    /// Opens the index for searching: one connection, made with no pool and no migration run —
    /// a search process spends a few milliseconds in all, and a pool's writer and reader
    /// connections, WAL set-up and migrator checks were several of them. An index whose
    /// migrations are not exactly Docent's (older, newer, new, damaged) is opened as
    /// `init(path:)` opens it, which migrates or says why it cannot.
    /// Modes are made private as there.
    public static func searching(path: String, privateDirectory: Bool = false) throws(IndexError) -> FileIndex {
        let queue: DatabaseQueue
        do {
            try preparePrivateFiles(path: path, privateDirectory: privateDirectory)
            queue = try DatabaseQueue(path: path, configuration: configuration())
            let applied = try queue.read { try String.fetchSet($0, sql: "SELECT identifier FROM grdb_migrations") }
            if applied == Set(migrator.migrations) { return FileIndex(path: path, searchingWith: queue) }
            try queue.close()
        } catch {
            // Damage, a missing table, a busy index: the full open below tells which.
        }
        return try FileIndex(path: path, privateDirectory: privateDirectory)
    }

    /// Makes the index's directory and files private before SQLite opens them: a new
    /// database is created `0600` here, and SQLite gives its `-wal` and `-shm` files the
    /// database's mode; older, looser ones are tightened.
    private static func preparePrivateFiles(path: String, privateDirectory: Bool) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do { try PrivateStorage.makeDirectory(directory, tightenExisting: privateDirectory) } catch {
                throw IndexError.cannotOpen(path: path, message: "cannot make its directory: \(error)")
            }
        }
        if access(path, F_OK) != 0 {
            if let fd = try? PrivateStorage.create(path, truncate: false) { _ = Glibc.close(fd) }
        }
        for suffix in sideFileSuffixes { PrivateStorage.tighten(path + suffix) }
    }

    /// The files Docent keeps beside the database, by suffix ("" is the database).
    public static let sideFileSuffixes = [
        "", "-wal", "-shm", "-journal", ".lock", ".watch.json", ".roots", ".roots.tmp", ".writers", ".clean", ".clean.tmp", ".damaged",
    ]

    /// Opens the pool. Switching a brand-new database to WAL needs an exclusive lock, and
    /// SQLite reports a concurrent opener's lock at once (the busy timeout does not apply to
    /// that switch): the switch is made first, and tried again, on a bare connection
    /// (`switchToWriteAheadLog`); an open that fails all the same is tried again, for up to
    /// about five seconds.
    private static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        switchToWriteAheadLog(path: path)
        var attempt = 0
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                failedPoolOpens.add(1, ordering: .relaxed)
                attempt += 1
                usleep(useconds_t(20_000 + Int.random(in: 0..<30_000)))
            }
        }
    }

    /// Pools that failed to open in this process, and were tried again (for the tests).
    static let failedPoolOpens = Atomic<Int>(0)

    /// Puts the database at `path` in WAL mode on a bare SQLite connection, tried again while a
    /// concurrent opener's switch holds it, before the pool opens: the pool's own switch then
    /// finds it done. A pool that failed to open frees its connections' dispatch queues, and
    /// freeing one (GRDB keys them with queue-specific values) starts libdispatch's worker
    /// pool, whose monitor wakes the process once a second for the rest of its life
    /// (`OwnThreads`): a watcher that lost this race never slept again. A database already in
    /// WAL mode is not written; a failure other than a busy lock is left to the pool to report.
    private static func switchToWriteAheadLog(path: String) {
        for _ in 0..<100 {
            var connection: OpaquePointer?
            defer { sqlite3_close_v2(connection) }
            guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else { return }
            sqlite3_busy_timeout(connection, 10_000)
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(connection, "PRAGMA journal_mode = WAL", -1, &statement, nil) == SQLITE_OK else { return }
            let step = sqlite3_step(statement)
            let mode = step == SQLITE_ROW ? sqlite3_column_text(statement, 0).map { String(cString: $0) } : nil
            sqlite3_finalize(statement)
            guard mode != "wal", step == SQLITE_BUSY || sqlite3_extended_errcode(connection) & 0xFF == SQLITE_BUSY else { return }
            usleep(useconds_t(20_000 + Int.random(in: 0..<30_000)))
        }
    }

    /// The default place: `$XDG_DATA_HOME/docent/index.sqlite` (`~/.local/share/docent/…`).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return base + "/docent/index.sqlite"
    }
}

/// The index could not be used.
public enum IndexError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, message: String)
    case newerSchema(path: String)
    /// The database is damaged (SQLite found it malformed, or it is not a database at all).
    case damaged(path: String, message: String)
    /// The disk under the index takes no writes now: full, read-only, over quota, failing.
    /// `code` is SQLite's extended result code. A transaction that failed left nothing behind.
    case storage(path: String, message: String, code: Int32)
    case database(message: String)
    /// The database server cannot be reached now (a shared PostgreSQL index): worth trying
    /// again later, like storage that takes no writes; a transaction cut off left nothing.
    case unreachable(address: String, message: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let message):
            "cannot open the index at \(path): \(message)"
        case .newerSchema(let path):
            "the index at \(path) was made by a newer Docent; upgrade Docent, or remove the index to rebuild it"
        case .damaged(let path, let message):
            "the index at \(path) is damaged (\(message))"
        case .storage(let path, let message, _):
            "the index at \(path) cannot be written (\(message)): free space on its disk or make it writable"
        case .database(let message):
            "the index failed: \(message)"
        case .unreachable(let address, let message):
            "the index at \(address) cannot be reached (\(message))"
        }
    }
}
