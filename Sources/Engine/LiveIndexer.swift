import Dispatch
import FileAccess
import Foundation
import Index
import SystemPackage
package import Watcher

/// What applying one batch of live changes did.
package struct LiveSummary: Sendable, Equatable {
    package var read = 0
    package var removed = 0
    package var moved = 0
    package var unchanged = 0
    package var rescanned = 0
}

/// Applies the watcher's changes to the index: files compared by `lstat` signature and read
/// again only when they changed, trees removed and renamed as wholes, lost events answered
/// by a reconcile of the directory.
package final class LiveIndexer: Sendable {
    package let indexer: Indexer

    package init(indexer: Indexer) {
        self.indexer = indexer
    }

    /// Applies `changes` in order (moves before the changes filed after them).
    package func apply(_ changes: [FileChange]) throws -> LiveSummary {
        var summary = LiveSummary()
        var reads: [FilePath] = []
        var rescans: [FilePath] = []
        // Files changed one after another are compared with their rows together.
        var changed: [FilePath] = []
        let index = indexer.index
        for change in changes {
            if case .changed(let path) = change {
                changed.append(path)
                continue
            }
            reads += try needingReading(changed, summary: &summary)
            changed.removeAll()
            switch change {
            case .changed: break
            case .removed(let path):
                try read(&reads, summary: &summary)
                summary.removed += try index.removeTree(path.bytes)
            case .moved(let from, let to):
                try read(&reads, summary: &summary)
                summary.moved += try index.moveTree(from: from.bytes, to: to.bytes)
                if let status = try present(to, summary: &summary),
                   try needsReading(to, status, stored: index.signature(at: to.bytes), summary: &summary, afterMove: true) {
                    reads.append(to)
                }
            case .rescan(let path):
                rescans.append(path)
            }
        }
        reads += try needingReading(changed, summary: &summary)
        try read(&reads, summary: &summary)
        if !rescans.isEmpty {
            let result = try indexer.run(roots: rescans, remember: false)
            summary.rescanned += result.files
            summary.read += result.indexed
            summary.removed += result.removed
        }
        return summary
    }

    /// Of `paths` (files changed, in order), those that must be read, their rows looked up in
    /// one read of the index. When one is gone, its row and those under it go, and the others
    /// are looked up one at a time after that.
    private func needingReading(_ paths: [FilePath], summary: inout LiveSummary) throws -> [FilePath] {
        guard !paths.isEmpty else { return [] }
        let statuses = paths.map { try? FileStatus.lstat($0) }
        let stored = statuses.contains { $0 == nil } ? nil : try indexer.index.signatures(at: paths.map(\.bytes))
        var result: [FilePath] = []
        for (i, path) in paths.enumerated() {
            guard let status = try statuses[i] ?? present(path, summary: &summary) else { continue }
            let signature = try stored.map { $0[i] } ?? indexer.index.signature(at: path.bytes)
            if try needsReading(path, status, stored: signature, summary: &summary) { result.append(path) }
        }
        return result
    }

    /// The file's status; nil, and its row gone (with those under it), when it is gone.
    private func present(_ path: FilePath, summary: inout LiveSummary) throws -> FileStatus? {
        if let status = try? FileStatus.lstat(path) { return status }
        summary.removed += try indexer.index.removeTree(path.bytes)
        return nil
    }

    /// Whether the file at `path` must be read: it is not a directory, and its signature
    /// differs from its row's (`stored`). After a rename the change time moves, so there
    /// only device, inode, size and modification time count.
    private func needsReading(_ path: FilePath, _ status: FileStatus, stored: FileSignature?, summary: inout LiveSummary,
                              afterMove: Bool = false) throws -> Bool {
        // Excluded paths never get here: the watcher drops their events with the same exclusions.
        guard status.kind != .directory else { return false }
        guard let stored else { return true }
        switch stored.compared(to: status.signature) {
        case .unchanged:
            summary.unchanged += 1
            return false
        case .renamed where afterMove, .remounted:
            try indexer.index.updateSignature(path.bytes, status.signature)
            return false
        case .renamed, .changed:
            return true
        }
    }

    /// Reads `paths` on every core and stores their rows in one transaction.
    private func read(_ paths: inout [FilePath], summary: inout LiveSummary) throws {
        guard !paths.isEmpty else { return }
        let work = paths
        paths.removeAll()
        let rows = Locked<[IndexedFile]>([])
        let indexer = self.indexer
        OwnThreads.concurrentPerform(iterations: min(indexer.workers, work.count)) { worker in
            var i = worker
            while i < work.count {
                if let row = indexer.row(for: work[i]).map(indexer.index.prepareForWrite) { rows.withLock { $0.append(row) } }
                i += indexer.workers
            }
        }
        let stored = rows.withLock { $0 }
        try indexer.index.upsert(stored)
        try indexer.recordTypeAncestry(among: Set(stored.map(\.contentType)))
        summary.read += stored.count
    }
}
