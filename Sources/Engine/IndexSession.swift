import FileAccess
import Foundation
import Index
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
/// A damaged index is moved aside (`index.sqlite.damaged-<time>`, the two newest kept) and
/// made again, empty, with the roots from `index.sqlite.roots`; the command's own run then
/// reads every file under them. Writers hold a shared `flock` on `index.sqlite.writers`
/// for their lifetime, so only the first judges and only the last records a clean close.
public final class IndexSession {
    public let path: String
    /// The open index (a new one after a rebuild).
    public private(set) var index: FileIndex
    /// Whether this session rebuilt the index (every file under the roots is read again).
    public private(set) var rebuilt = false
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
    public init(path: String, privateDirectory: Bool, thoroughCheck: Bool = false,
                report: @escaping (String) -> Void) throws(IndexError) {
        self.path = path
        self.privateDirectory = privateDirectory
        self.report = report
        try? PrivateStorage.makeDirectory((path as NSString).deletingLastPathComponent, tightenExisting: privateDirectory)
        writers = Glibc.open(path + ".writers", O_RDWR | O_CREAT | O_CLOEXEC, PrivateStorage.fileMode)
        let assessment = Self.assess(path: path, writers: writers)
        if assessment == .foreignLog {
            let aside = path + "-wal.foreign-" + Self.timestamp()
            if rename(path + "-wal", aside) == 0 {
                unlink(path + "-shm")
                report("\(path)-wal was not left by Docent (another database's log, or a stale copy): moved aside to \(aside) unread")
            }
        }
        do {
            index = try FileIndex(path: path, privateDirectory: privateDirectory)
        } catch let error where error.isDamage {
            index = try Self.rebuild(path: path, privateDirectory: privateDirectory, after: error, old: nil, report: report)
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
        unlink(path + ".clean")  // until a clean close says otherwise
        if FileManager.default.fileExists(atPath: FileIndex.damageFlagPath(for: path)), thorough == true {
            unlink(FileIndex.damageFlagPath(for: path))  // checked, and sound or rebuilt
        }
        if access(index.rootsFilePath, F_OK) != 0 { try? index.saveRootsFile() }
    }

    /// Checks the open index, and rebuilds it when the check finds damage.
    public func checkOrRebuild(thorough: Bool) throws(IndexError) {
        do {
            try index.check(thorough: thorough)
        } catch let error where error.isDamage {
            try rebuild(after: error)
        }
        unlink(FileIndex.damageFlagPath(for: path))
    }

    /// Moves the damaged index aside and opens a new one holding the same roots.
    public func rebuild(after error: IndexError) throws(IndexError) {
        index = try Self.rebuild(path: path, privateDirectory: privateDirectory, after: error, old: index, report: report)
        rebuilt = true
    }

    /// Closes the index; the last writer records the clean close.
    public func finish() {
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
        if let flag = FileManager.default.contents(atPath: FileIndex.damageFlagPath(for: path)) {
            return .flagged(String(decoding: flag, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let record = FileManager.default.contents(atPath: path + ".clean") else { return .unclean }
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

    /// Moves the damaged database (and its log) aside, keeps the two newest damaged copies,
    /// and opens a new database with the same roots.
    static func rebuild(path: String, privateDirectory: Bool, after error: IndexError, old: FileIndex?,
                        report: (String) -> Void) throws(IndexError) -> FileIndex {
        var roots = FileIndex.rootsInFile(for: path)
        if roots.isEmpty, let old, let stored = try? old.roots() { roots = stored.map(\.path) }
        try? old?.close()
        let aside = path + ".damaged-" + timestamp()
        guard rename(path, aside) == 0 else {
            throw .cannotOpen(path: path, message: "it is damaged and could not be moved aside: \(Errno(rawValue: errno))")
        }
        _ = rename(path + "-wal", aside + "-wal")
        unlink(path + "-shm")
        unlink(path + "-journal")
        unlink(path + ".clean")
        unlink(FileIndex.damageFlagPath(for: path))
        pruneDamagedCopies(of: path, keeping: 2)
        let index = try FileIndex(path: path, privateDirectory: privateDirectory)
        try index.addRoots(roots)
        let cause: String
        if case .damaged(_, let message) = error { cause = message } else { cause = error.description }
        report("the index at \(path) was damaged (\(cause)): moved aside to \(aside); rebuilding it from its "
               + (roots.count == 1 ? "root" : "\(roots.count) roots"))
        return index
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
