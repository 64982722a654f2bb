import CMalloc
import Dispatch
import DocumentModel
import FileAccess
import Foundation
import Index
import Synchronization
import SystemPackage
import Watcher

/// One run of the indexer: the crawl and the comparison with the index on the calling
/// thread, document work on worker threads fed through a bounded queue, rows written in
/// batches by whichever worker fills one.
final class IndexRun {
    let indexer: Indexer
    let start = ContinuousClock.now
    private let queue = WorkQueue<QueuedFile>(capacity: 512)
    private let shared: RunState
    private let group = DispatchGroup()
    private var summary = IndexSummary()
    /// Rows of files found gone, removed at the end (a file renamed into a directory
    /// visited later can still claim its row).
    private(set) var removals: [[UInt8]] = []
    private var visited: Set<[UInt8]> = []
    /// Error rows stored for directories that could not be listed.
    private var directoryErrors = 0
    /// Whether the index held rows of this host when the run began (else it is filled from empty).
    let indexHadRows: Bool

    /// The indexer's exclusions, and the mounts that are offline now.
    private let exclusions: Exclusions
    private let offline: Set<FilePath>

    init(indexer: Indexer, progress: (@Sendable (IndexProgress) -> Void)?) {
        self.indexer = indexer
        offline = indexer.offline.withLock { $0 }
        exclusions = offline.isEmpty ? indexer.exclusions : indexer.exclusions.adding(paths: offline)
        shared = RunState(progress: progress, start: start)
        indexHadRows = ((try? indexer.index.count()) ?? 0) > 0
    }

    /// Whether the workers run (they start with the first file to read, so a run with
    /// nothing to read never loads libmagic).
    private var workersStarted = false

    /// Hands `file` to the workers, starting them first if needed.
    private func enqueue(_ file: FilePath, size: Int64) {
        if !workersStarted { startWorkers() }
        queue.put(QueuedFile(path: file, size: size))
    }

    /// Starts one worker thread per core.
    private func startWorkers() {
        workersStarted = true
        for _ in 0..<indexer.workers {
            group.enter()
            let (indexer, queue, shared, group) = (indexer, queue, shared, group)
            let thread = Thread {
                defer { group.leave() }
                shared.work(indexer: indexer, queue: queue)
            }
            thread.name = "docent-indexer"
            thread.start()
        }
    }

    /// Crawls `root`, comparing each directory with its rows. The crawl (`readdir` and an
    /// `lstat` per file: mostly the kernel's time) runs a few directories ahead on a thread of
    /// its own while this one compares them with the index, so on two cores a run that finds
    /// nothing changed takes about the longer of the two, not their sum.
    func reconcile(root: FilePath) throws {
        let crawled = WorkQueue<CrawlItem>(capacity: 64)
        let stop = Atomic<Bool>(false)
        let (crawler, gate) = (Crawler(exclusions: exclusions), indexer.gate)
        let thread = Thread {
            crawler.walkDirectories(root, statusOfFiles: true, visit: { directory in
                gate.pass()  // paused: the crawl waits too
                if !stop.load(ordering: .relaxed) { crawled.put(.directory(directory)) }
            }, onError: { path, errno in
                if !stop.load(ordering: .relaxed) { crawled.put(.unreadable(path, errno)) }
            })
            crawled.close(consumers: 1)
        }
        thread.name = "docent-crawler"
        thread.start()
        var failure: (any Error)?
        while let item = crawled.take() {
            guard failure == nil else { continue }  // drained, so the crawler never waits for room
            switch item {
            case .directory(let directory):
                do { try reconcile(directory) } catch {
                    failure = error
                    stop.store(true, ordering: .relaxed)
                }
            case .unreadable(let path, let errno):
                guard let status = try? FileStatus.lstat(path) else { continue }
                var row = IndexedFile(status: status, path: path, contentType: "public.folder")
                row.errorKind = DocumentProblem.Kind.unreadable.rawValue
                row.errorMessage = "cannot list the directory: \(errno)"
                shared.store([row], indexer: indexer)
                directoryErrors += 1
            }
        }
        if let failure { throw failure }
    }

    private func reconcile(_ directory: CrawledDirectory) throws {
        indexer.gate.pass()  // paused: wait here
        let path = directory.path.bytes
        visited.insert(path)
        var known = try indexer.index.signatures(in: path)
        // Rows of subdirectories are the error rows of directories that could not be listed;
        // they are settled when those directories are visited.
        for name in directory.subdirectories { known[PathKey(directory.path.appending(name).bytes)] = nil }
        var newcomers: [(FilePath, FileStatus)] = []
        for (i, name) in directory.files.enumerated() {
            let file = directory.path.appending(name)
            guard let status = directory.fileStatuses[i] else { continue }  // gone since readdir
            summary.files += 1
            if let signature = known.removeValue(forKey: PathKey(file.bytes)) {
                let comparison = signature.compared(to: status.signature)
                if comparison == .unchanged {
                    summary.unchanged += 1
                    shared.done.add(1, ordering: .relaxed)
                } else if comparison == .remounted {
                    try indexer.index.updateSignature(file.bytes, status.signature)
                    summary.unchanged += 1
                    shared.done.add(1, ordering: .relaxed)
                } else {
                    enqueue(file, size: status.size)
                }
            } else {
                newcomers.append((file, status))
            }
        }
        for (file, status) in newcomers {
            if indexHadRows, let old = try renamedFrom(status, to: file) {
                try indexer.index.move(from: old, to: file.bytes)
                known[PathKey(old)] = nil
                summary.moved += 1
                shared.done.add(1, ordering: .relaxed)
            } else {
                enqueue(file, size: status.size)
            }
        }
        removals += known.keys.map(\.bytes)
        if removals.count >= 10_000 {
            summary.removed += try indexer.index.remove(removals)
            removals.removeAll()
        }
        shared.found.store(summary.files, ordering: .relaxed)
        shared.report(directory.path)
    }

    /// The row this new path takes over: one with the same device, inode, size and
    /// modification time whose own path no longer holds that file.
    private func renamedFrom(_ status: FileStatus, to file: FilePath) throws -> [UInt8]? {
        let new = status.signature
        for (path, old) in try indexer.index.rows(device: new.device, inode: new.inode)
        where [.unchanged, .renamed].contains(old.compared(to: new)) && path != file.bytes {
            let there = try? FileStatus.lstat(FilePath(bytes: path))
            if there?.device != status.device || there?.inode != status.inode { return path }
        }
        return nil
    }

    /// Waits for the workers, writes what is left, and removes the rows of directories that
    /// were not met (gone, or now excluded).
    func finish(roots: [FilePath]) throws -> IndexSummary {
        if workersStarted {
            queue.close(consumers: indexer.workers)
            group.wait()
        }
        let (done, errors) = try shared.finish(indexer: indexer)
        summary.indexed = done - directoryErrors
        summary.identicalCopies = shared.identicalCopies
        summary.errors = errors
        summary.removed += try indexer.index.remove(removals)
        removals.removeAll()
        for root in roots {
            let gone = try indexer.index.directories(under: root.bytes).filter { directory in
                !visited.contains(directory) && !offline.contains { FilePath(bytes: directory).isWithin($0) }
            }
            summary.removed += try indexer.index.removeContents(of: gone)
        }
        return summary
    }
}

/// What the crawler thread hands to the run: a directory's entries, or one it could not list.
private enum CrawlItem: Sendable {
    case directory(CrawledDirectory)
    case unreadable(FilePath, Errno)
}

/// What the workers share: the batch being filled, counts, progress.
final class RunState: Sendable {
    let found = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    private let batch = Locked(Batch())
    private let progress: (@Sendable (IndexProgress) -> Void)?
    private let start: ContinuousClock.Instant
    private let lastReport: Locked<ContinuousClock.Instant>

    /// A batch is written once it holds this many rows or this much text.
    static let batchRows = 256
    static let batchBytes = 4 << 20

    init(progress: (@Sendable (IndexProgress) -> Void)?, start: ContinuousClock.Instant) {
        self.progress = progress
        self.start = start
        lastReport = Locked(start)
    }

    /// Files at least this large are read one at a time: two of them at once (two long
    /// manuals in two helpers, two huge texts decoded in this process) made a cold index's
    /// peak of memory. A worker that meets one while the other reads one sets it aside and
    /// goes on with the rest.
    static let largeFileBytes: Int64 = 2 << 20
    private let largeLane = LargeLane()

    /// What reading `file` may hold in memory, as far as its name tells: its size, times what
    /// the text grows to on the way. A gzip file inflates up to 8× (a 1.7 MB `.ps.gz` is
    /// 12.7 MB of text), and cmark's tree of a Markdown file is about 13× its size (an 800 KB
    /// changelog: 12 MB); two such files read at once, one by each worker, made a cold index's
    /// peak of memory as two long manuals once did.
    static func memoryWeight(of file: QueuedFile) -> Int64 {
        // Most files are far too small to matter whatever their name: no name work for them.
        guard file.size * 8 >= largeFileBytes, let name = file.path.lastComponent?.string.utf8, let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return file.size }
        switch String(decoding: name[name.index(after: dot)...], as: UTF8.self).lowercased() {
        case "gz", "tgz", "md", "markdown": return file.size * 8
        default: return file.size
        }
    }
    /// The last large files read, so a byte-identical copy is read once.
    private let identical = IdenticalFiles()
    /// Large files whose bytes were those of one read before.
    var identicalCopies: Int { identical.reused.load(ordering: .relaxed) }

    /// One worker's loop: take a path, make its row, add it to the batch.
    func work(indexer: Indexer, queue: WorkQueue<QueuedFile>) {
        func read(_ path: FilePath, large: Bool = false) {
            done.add(1, ordering: .relaxed)
            if let row = indexer.row(for: path, identical: large ? identical : nil) { store([row], indexer: indexer) }
            report(path.removingLastComponent())
        }
        func readLarge(_ path: FilePath) {
            read(path, large: true)
            largeLane.release()
        }
        while true {
            // A large file set aside, now that no other is being read.
            if let path = largeLane.takeSetAside(preferring: identical.recentSizes) {
                readLarge(path)
                continue
            }
            guard let file = queue.take() else { break }
            guard Self.memoryWeight(of: file) >= Self.largeFileBytes else {
                read(file.path)
                continue
            }
            if largeLane.claim(or: file) { readLarge(file.path) }
        }
        // The queue is done: what was set aside, one at a time.
        while let path = largeLane.nextSetAside(preferring: { identical.recentSizes }) { readLarge(path) }
    }

    /// Adds `rows` to the batch, writing the batch when it is full.
    func store(_ rows: [IndexedFile], indexer: Indexer) {
        let full: [IndexedFile]? = batch.withLock { batch in
            for row in rows {
                batch.rows.append(row)
                batch.bytes += row.text.utf8.count
                batch.stored += 1
                if row.errorKind != nil { batch.errors += 1 }
            }
            guard batch.rows.count >= Self.batchRows || batch.bytes >= Self.batchBytes else { return nil }
            defer { batch.rows.removeAll(keepingCapacity: true); batch.bytes = 0 }
            return batch.rows
        }
        guard let full else { return }
        write(full, indexer: indexer)
        // The batch's texts, freed, would otherwise stay resident in glibc's heaps between batches.
        docent_trim_malloc()
    }

    private func write(_ rows: [IndexedFile], indexer: Indexer) {
        do { try indexer.index.upsert(rows) } catch { batch.withLock { $0.failure = $0.failure ?? error } }
    }

    /// Writes the last batch; returns how many rows were stored and how many had errors.
    func finish(indexer: Indexer) throws -> (stored: Int, errors: Int) {
        let rest = batch.withLock { batch in
            defer { batch.rows.removeAll() }
            return batch.rows
        }
        if !rest.isEmpty { write(rest, indexer: indexer) }
        return try batch.withLock { batch in
            if let failure = batch.failure { throw failure }
            return (batch.stored, batch.errors)
        }
    }

    /// Calls the progress handler if a tenth of a second has passed since the last call.
    func report(_ directory: FilePath) {
        guard let progress else { return }
        let now = ContinuousClock.now
        let due = lastReport.withLock { last in
            guard now - last >= .milliseconds(100) else { return false }
            last = now
            return true
        }
        guard due else { return }
        progress(IndexProgress(found: found.load(ordering: .relaxed), done: done.load(ordering: .relaxed),
                               directory: directory, elapsed: now - start))
    }
}

/// A file for the workers, with its size from the crawl's `lstat`.
struct QueuedFile: Sendable {
    var path: FilePath
    var size: Int64
}

/// Large files are read one at a time; those met meanwhile wait here, in the order met
/// (the crawl's, so a directory's files stay together), except that a file of the size of
/// one just read goes first: it may be its copy, read once only while that one is remembered.
private final class LargeLane: @unchecked Sendable {
    // Unchecked: `busy` and `setAside` are only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var busy = false
    private var setAside: [QueuedFile] = []

    /// Takes the lane for `file` (true), or sets `file` aside for later (false).
    func claim(or file: QueuedFile) -> Bool {
        condition.withLock {
            if busy {
                setAside.append(file)
                return false
            }
            busy = true
            return true
        }
    }

    /// A file set aside, with the lane taken for it, if the lane is free now.
    func takeSetAside(preferring sizes: Set<Int64>) -> FilePath? {
        condition.withLock {
            guard !busy, !setAside.isEmpty else { return nil }
            busy = true
            return next(preferring: sizes)
        }
    }

    /// Once the queue is done: a file set aside, waiting for the lane; nil when none remains.
    func nextSetAside(preferring sizes: () -> Set<Int64>) -> FilePath? {
        condition.withLock {
            while busy && !setAside.isEmpty { condition.wait() }
            guard !setAside.isEmpty else { return nil }
            busy = true
            return next(preferring: sizes())
        }
    }

    private func next(preferring sizes: Set<Int64>) -> FilePath {
        let index = setAside.firstIndex { sizes.contains($0.size) } ?? 0
        return setAside.remove(at: index).path
    }

    /// Gives the lane back.
    func release() {
        condition.withLock {
            busy = false
            condition.broadcast()
        }
    }
}

private struct Batch {
    var rows: [IndexedFile] = []
    var bytes = 0
    var stored = 0
    var errors = 0
    var failure: (any Error)?
}

