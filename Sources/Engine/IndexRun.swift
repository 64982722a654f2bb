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
/// batches by one worker at a time, the others reading on.
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
        indexHadRows = ((try? indexer.index.count()) ?? 0) > 0
        shared = RunState(progress: progress, start: start, filling: !indexHadRows)
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
            OwnThreads.start("docent-indexer") {
                defer { group.leave() }
                shared.work(indexer: indexer, queue: queue)
            }
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
        OwnThreads.start("docent-crawler") {
            crawler.walkDirectories(root, statusOfFiles: true, visit: { directory in
                gate.pass()  // paused: the crawl waits too
                if !stop.load(ordering: .relaxed) { crawled.put(.directory(directory)) }
            }, onError: { path, errno in
                if !stop.load(ordering: .relaxed) { crawled.put(.unreadable(path, errno)) }
            })
            crawled.close(consumers: 1)
        }
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
