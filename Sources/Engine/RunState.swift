import CMalloc
import FileAccess
import Foundation
import Index
import Synchronization
import SystemPackage

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
    /// While an empty index is filled, a batch is bounded by its text alone (at most this many
    /// rows): each commit is one segment of FTS5's index, whose merging is deferred to the run's
    /// end up to 1,000 segments (`SegmentMerging.deferred`). Small files in batches of 256 rows
    /// reached that every ~220,000 files; each time, FTS5 merged them all at once (10–15 s with
    /// the write lock held at a million files) and the final merge read those postings again.
    static let fillingBatchRows = 8_192
    /// The rows a batch holds at most in this run.
    let rowsPerBatch: Int

    init(progress: (@Sendable (IndexProgress) -> Void)?, start: ContinuousClock.Instant, filling: Bool = false) {
        self.progress = progress
        self.start = start
        lastReport = Locked(start)
        rowsPerBatch = filling ? Self.fillingBatchRows : Self.batchRows
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
            if let row = indexer.row(for: path, identical: large ? identical : nil) { store([indexer.index.prepareForWrite(row)], indexer: indexer) }
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

    /// Adds `rows` to the batch; a full batch is written by this worker, or left for the one
    /// writing now while this one goes on reading.
    func store(_ rows: [IndexedFile], indexer: Indexer) {
        let full: (rows: [IndexedFile], bytes: Int)? = batch.withLock { batch in
            for row in rows {
                batch.rows.append(row)
                batch.bytes += row.text.utf8.count + row.storageForm.bytes
                batch.stored += 1
                if row.errorKind != nil { batch.errors += 1 }
            }
            guard batch.rows.count >= rowsPerBatch || batch.bytes >= Self.batchBytes else { return nil }
            defer { batch.rows.removeAll(keepingCapacity: true); batch.bytes = 0 }
            return (batch.rows, batch.bytes)
        }
        guard let full else { return }
        // One worker writes at a time. A worker whose batch filled while the other wrote used
        // to wait with its core idle until that write ended, and writes grow with the index (a
        // million files: 15.7 s of waiting, 13% of both cores idle). Now it leaves the batch for
        // the writer and reads on, as long as what is left holds at most `pendingLimit` bytes
        // of text (the cold index's peak of memory), else it waits as before.
        let crowded = pending.withLock { pending in
            pending.append(full)
            return pending.reduce(0) { $0 + $1.bytes } > Self.pendingLimit
        }
        if crowded {
            writer.withLock { _ in writePending(indexer: indexer) }
        } else {
            _ = writer.withLockIfAvailable { _ in writePending(indexer: indexer) }
        }
    }

    /// The text of full batches left for the worker writing, at most, before a worker waits:
    /// as much as one batch may hold.
    static let pendingLimit = batchBytes
    private let pending = Mutex<[(rows: [IndexedFile], bytes: Int)]>([])
    /// Held by the worker writing (and by a test, to be that worker).
    let writer = Mutex<Void>(())

    /// Writes the batches left, the last one left too (the writer's lock held). A batch left
    /// just as the writer finished waits for the next worker's write, or `finish`.
    private func writePending(indexer: Indexer) {
        while let rows = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst().rows }) {
            write(rows, indexer: indexer)
            // The batch's texts, freed, would otherwise stay resident in glibc's heaps between batches.
            docent_trim_malloc()
        }
    }

    private func write(_ rows: [IndexedFile], indexer: Indexer) {
        do { try indexer.index.upsert(rows) } catch { batch.withLock { $0.failure = $0.failure ?? error } }
    }

    /// Writes the last batch; returns how many rows were stored and how many had errors.
    func finish(indexer: Indexer) throws -> (stored: Int, errors: Int) {
        let rest = batch.withLock { batch in
            defer { batch.rows.removeAll(); batch.bytes = 0 }
            return (rows: batch.rows, bytes: batch.bytes)
        }
        if !rest.rows.isEmpty { pending.withLock { $0.append(rest) } }
        writer.withLock { _ in writePending(indexer: indexer) }
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

