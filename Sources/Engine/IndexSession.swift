import FileAccess
import Foundation
package import Index
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A command's time writing the index (`docent index`, `docent watch`): opened with a
/// check whenever the index may be damaged, rebuilt when it is, closed cleanly.
///
/// When the last writer closes the index cleanly it records the database's and its log's
/// inodes, sizes, and modification and change times (`index.sqlite.clean`). The first writer to open it next
/// compares:
/// - no record: the last writer died (a crash, a kill, a power cut) → `PRAGMA quick_check`;
/// - the database differs: something other than Docent changed it → the thorough check;
/// - a write-ahead log that Docent did not leave: another database's, or a stale copy →
///   moved aside before SQLite can replay it, then the thorough check;
/// - a reader's damage flag (`index.sqlite.damaged`) → the thorough check.
/// A damaged index is copied aside (`index.sqlite.damaged-<time>`, the two newest kept),
/// emptied where it is and made again with the roots from `index.sqlite.roots`; the command's own run then
/// reads every file under them. Writers hold a shared `flock` on `index.sqlite.writers`
/// for their lifetime, so only the first judges and only the last records a clean close.
package final class IndexSession {
    package let path: String
    /// The open index (a new one after a rebuild).
    package var index: any IndexStore { sqlite ?? store! }
    /// The SQLite index, when it is one (checks, rebuilds and clean closes are its own).
    private var sqlite: FileIndex?
    /// A store on a database server, which keeps its own health.
    private let store: (any IndexStore)?
    /// Whether this session rebuilt the index (every file under the roots is read again).
    package private(set) var rebuilt = false
    private let privateDirectory: Bool
    private let report: (String) -> Void
    private var writers: Int32 = -1

    /// What the state of the files beside the database says about how it was left.
    enum Assessment: Equatable {
        case new, clean, unclean, changedOutside, foreignLog, flagged(String), sharedWithWriter
    }

    /// Opens the index at `path` for writing; `report` is told, in a sentence each, of a
    /// check that found damage, a log moved aside, a rebuild. `thoroughCheck` checks the
    /// whole index whatever its state (`docent index --check`).
    package init(path: String, privateDirectory: Bool, thoroughCheck: Bool = false,
                report: @escaping (String) -> Void) throws(IndexError) {
        self.path = path
        self.privateDirectory = privateDirectory
        self.report = report
        store = nil
        try? PrivateStorage.makeDirectory((path as NSString).deletingLastPathComponent, tightenExisting: privateDirectory)
        writers = Glibc.open(path + ".writers", O_RDWR | O_CREAT | O_CLOEXEC, PrivateStorage.fileMode)
        let assessment = Self.assess(path: path, writers: writers)
        if assessment == .foreignLog {
            let aside = path + "-wal.foreign-" + Self.timestamp()
            let moved = Self.whileNobodyHasItOpen(path) { () -> Bool in
                guard rename(path + "-wal", aside) == 0 else { return false }
                unlink(path + "-shm")
                return true
            }
            if moved == true {
                report("\(path)-wal was not left by Docent (another database's log, or a stale copy): moved aside to \(aside) unread")
            } else if moved == nil {
                report("\(path)-wal was not left by Docent, but another process has the index open and reads it: checking the whole index")
            }
        }
        do {
            sqlite = try FileIndex(path: path, privateDirectory: privateDirectory)
        } catch let error where error.isDamage {
            sqlite = try Self.rebuild(path: path, privateDirectory: privateDirectory, after: error, old: nil, report: report)
            rebuilt = true
            return
        }
        let thorough: Bool?
        switch assessment {
        case .new, .clean, .sharedWithWriter: thorough = thoroughCheck ? true : nil
        case .unclean: thorough = thoroughCheck
        case .changedOutside, .foreignLog, .flagged: thorough = true
        }
        if let thorough { try checkOrRebuild(thorough: thorough) }
        try sqlite?.restoreSegmentMerging()
        unlink(path + ".clean")  // until a clean close says otherwise
        if FileManager.default.fileExists(atPath: FileIndex.damageFlagPath(for: path)), thorough == true {
            unlink(FileIndex.damageFlagPath(for: path))  // checked, and sound or rebuilt
        }
        if let sqlite, access(sqlite.rootsFilePath, F_OK) != 0 { try? sqlite.saveRootsFile() }
    }

    /// A session on a store that a database server keeps (PostgreSQL): nothing to judge,
    /// check or rebuild here; `finish()` closes the connection.
    package init(store: any IndexStore) {
        self.store = store
        path = store.path
        privateDirectory = false
        report = { _ in }
    }

    /// Checks the open index, and rebuilds it when the check finds damage.
    package func checkOrRebuild(thorough: Bool) throws(IndexError) {
        guard let sqlite else { return }
        do {
            try sqlite.check(thorough: thorough)
        } catch let error where error.isDamage {
            try rebuild(after: error)
        }
        unlink(FileIndex.damageFlagPath(for: path))
    }

    /// Moves the damaged index aside and opens a new one holding the same roots.
    package func rebuild(after error: IndexError) throws(IndexError) {
        guard sqlite != nil else { throw error }
        sqlite = try Self.rebuild(path: path, privateDirectory: privateDirectory, after: error, old: sqlite, report: report)
        rebuilt = true
    }

    /// Runs `body` while no other process has the database at `path` open or can open it,
    /// by taking the locks SQLite's own connections take (its unix VFS, `os_unix.c`):
    /// - the database file's EXCLUSIVE lock (write locks on its PENDING byte, 0x40000000,
    ///   and on the 510-byte SHARED range after the RESERVED byte): no other connection is
    ///   in a read or write transaction, nor can start one (it waits, SQLITE_BUSY);
    /// - the "DMS" byte of the `-shm` file (128: after the 120-byte wal-index header and
    ///   8 lock bytes), which every connection to a database in WAL mode holds shared from
    ///   its first read to its close: none has the database open at all.
    /// Waits up to `waiting` seconds for others to finish; nil when they did not, `body`'s
    /// result otherwise. The locks go with the descriptors, closed after `body` (this
    /// process must have no SQLite connection to the database: closing a descriptor drops
    /// all of a process's locks on that file).
    static func whileNobodyHasItOpen<T>(_ path: String, waiting: Double = 0, _ body: () -> T) -> T? {
        let database = Glibc.open(path, O_RDWR | O_CLOEXEC)
        let shared = Glibc.open(path + "-shm", O_RDWR | O_CLOEXEC)
        defer {
            if database >= 0 { Glibc.close(database) }
            if shared >= 0 { Glibc.close(shared) }
        }
        func lock(_ fd: Int32, _ start: Int, _ length: Int) -> Bool {
            guard fd >= 0 else { return true }  // no such file: nothing to exclude
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = off_t(start)
            lock.l_len = off_t(length)
            return fcntl(fd, F_SETLK, &lock) == 0
        }
        let pending = 0x4000_0000
        let deadline = ContinuousClock.now + .milliseconds(Int(waiting * 1000))
        while !(lock(database, pending, 1) && lock(database, pending + 2, 510) && lock(shared, 128, 1)) {
            guard ContinuousClock.now < deadline else { return nil }
            usleep(20_000)
        }
        return body()
    }

    /// Closes the index; the last writer records the clean close.
    package func finish() {
        try? index.close()
        guard writers >= 0 else { return }
        if flock(writers, LOCK_EX | LOCK_NB) == 0 { Self.recordCleanClose(path: path) }
        Glibc.close(writers)
        writers = -1
    }

    deinit {
        if writers >= 0 { Glibc.close(writers) }
    }

    // MARK: Judging how the index was left

    /// Takes this writer's place in the writers' lock and judges the index's state: only a
    /// writer that finds no other judges; the others join.
    static func assess(path: String, writers: Int32) -> Assessment {
        if writers >= 0 {
            guard flock(writers, LOCK_EX | LOCK_NB) == 0 else {
                while flock(writers, LOCK_SH) != 0, errno == EINTR {}
                return .sharedWithWriter
            }
            defer { _ = flock(writers, LOCK_SH) }  // from now on, one writer among others
            return judge(path: path)
        }
        return judge(path: path)
    }

    static func judge(path: String) -> Assessment {
        guard let database = Signature(path), database.size > 0 else { return .new }
        if let flag = WholeFile.read(FileIndex.damageFlagPath(for: path)) {
            return .flagged(String(decoding: flag, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let record = WholeFile.read(path + ".clean") else { return .unclean }
        let lines = String(decoding: record, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2 else { return .unclean }
        guard lines[0] == database.line else { return .changedOutside }
        let log = Signature(path + "-wal")
        if lines[1] != (log?.line ?? Signature.absent), (log?.size ?? 0) > 0 { return .foreignLog }
        return .clean
    }

    /// Records, after the last writer closed, the database's and its log's state.
    static func recordCleanClose(path: String) {
        guard let database = Signature(path) else { return }
        let text = database.line + "\n" + (Signature(path + "-wal")?.line ?? Signature.absent) + "\n"
        try? PrivateStorage.replace(path + ".clean", with: Array(text.utf8), temporary: path + ".clean.tmp")
    }

    /// A file's inode, size, and modification and change times to the nanosecond (a copy
    /// that keeps the modification time still has a new inode and change time).
    struct Signature {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
        static let absent = "absent"

        init?(_ path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
        }

        var line: String { "\(inode) \(size) \(modified) \(changed)" }
    }

    // MARK: Rebuilding

    /// Keeps a copy of the damaged database (and its log) for inspection, the two newest
    /// copies in all, empties the database file where it is, and makes it again with the
    /// same roots.
    ///
    /// Only while no other process has it open (see `whileNobodyHasItOpen`): renamed aside
    /// as it once was, a search that had opened the old file went on to open the new one's
    /// log and shared memory by name, and the writer then met SQLITE_IOERR (one rebuild in
    /// 40 under concurrent searches); emptied under a search's memory mapping, the search
    /// died of SIGBUS. (SQLite's own reset, `SQLITE_DBCONFIG_RESET_DATABASE` and VACUUM,
    /// left a malformed database under the same searches.) Searches are short: this waits
    /// for them, and one starting meanwhile waits for the rebuilt index.
    static func rebuild(path: String, privateDirectory: Bool, after error: IndexError, old: FileIndex?,
                        report: (String) -> Void) throws(IndexError) -> FileIndex {
        var roots = FileIndex.rootsInFile(for: path)
        if roots.isEmpty, let old, let stored = try? old.roots() { roots = stored.map(\.path) }
        try? old?.close()
        let aside = path + ".damaged-" + timestamp()
        // The copy first: the searches kept waiting below are the ones that started late.
        if copy(path, to: aside), access(path + "-wal", F_OK) == 0 { _ = copy(path + "-wal", to: aside + "-wal") }
        let emptied = whileNobodyHasItOpen(path, waiting: 60) { () -> Int32 in
            // An empty file is an empty database; with no log, SQLite's next opener (the
            // first, so it rebuilds the shared memory) finds nothing of the old one.
            guard truncate(path, 0) == 0 else { return errno }
            unlink(path + "-wal")
            unlink(path + "-journal")
            return 0
        }
        guard let emptied else {
            throw .cannotOpen(path: path, message: "it is damaged, and another process has kept it open for a minute; "
                              + "stop it (a `docent search --follow`?) and run `docent index`")
        }
        guard emptied == 0 else { throw .cannotOpen(path: path, message: "it is damaged and cannot be emptied: \(Errno(rawValue: emptied))") }
        pruneDamagedCopies(of: path, keeping: 2)
        unlink(path + ".clean")
        unlink(FileIndex.damageFlagPath(for: path))
        let index = try FileIndex(path: path, privateDirectory: privateDirectory)
        try index.addRoots(roots)
        let cause: String
        if case .damaged(_, let message) = error { cause = message } else { cause = error.description }
        let kept = access(aside, F_OK) == 0
        report("the index at \(path) was damaged (\(cause)): " + (kept ? "a copy is kept at \(aside); " : "")
               + "emptied and rebuilding it from its " + (roots.count == 1 ? "root" : "\(roots.count) roots"))
        return index
    }

    /// Copies `source` to `destination` (the index's files are 0600 and so is the copy);
    /// false, and nothing left, when it cannot: a full disk must not stop the rebuild.
    static func copy(_ source: String, to destination: String) -> Bool {
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
            PrivateStorage.tighten(destination)
            return true
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            return false
        }
    }

    /// Removes all but the newest `keeping` damaged copies (each as large as an index).
    static func pruneDamagedCopies(of path: String, keeping: Int) {
        let directory = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        let copies = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix(name + ".damaged-") && !$0.hasSuffix("-wal") }
            .sorted(by: >)  // the names end in a sortable time
        for copy in copies.dropFirst(keeping) {
            unlink(directory + "/" + copy)
            unlink(directory + "/" + copy + "-wal")
        }
    }

    /// Now, as a name part that sorts by time: 20261122-184503.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return String(format: "%04d%02d%02d-%02d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
