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
        let index = indexer.index
        for change in changes {
            switch change {
            case .changed(let path):
                if try needsReading(path, summary: &summary) { reads.append(path) }
            case .removed(let path):
                try read(&reads, summary: &summary)
                summary.removed += try index.removeTree(path.bytes)
            case .moved(let from, let to):
                try read(&reads, summary: &summary)
                summary.moved += try index.moveTree(from: from.bytes, to: to.bytes)
                if try needsReading(to, summary: &summary, afterMove: true) { reads.append(to) }
            case .rescan(let path):
                rescans.append(path)
            }
        }
        try read(&reads, summary: &summary)
        if !rescans.isEmpty {
            let result = try indexer.run(roots: rescans, remember: false)
            summary.rescanned += result.files
            summary.read += result.indexed
            summary.removed += result.removed
        }
        return summary
    }

    /// Whether the file at `path` must be read: it exists, is not a directory, and its
    /// signature differs from its row's. A file that is gone loses its row. After a rename
    /// the change time moves, so there only device, inode, size and modification time count.
    private func needsReading(_ path: FilePath, summary: inout LiveSummary, afterMove: Bool = false) throws -> Bool {
        let index = indexer.index
        guard let status = try? FileStatus.lstat(path) else {
            summary.removed += try index.removeTree(path.bytes)
            return false
        }
        // Excluded paths never get here: the watcher drops their events with the same exclusions.
        guard status.kind != .directory else { return false }
        guard let stored = try index.signature(at: path.bytes) else { return true }
        switch stored.compared(to: status.signature) {
        case .unchanged:
            summary.unchanged += 1
            return false
        case .renamed where afterMove, .remounted:
            try index.updateSignature(path.bytes, status.signature)
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
                if let row = indexer.row(for: work[i]) { rows.withLock { $0.append(row) } }
                i += indexer.workers
            }
        }
        let stored = rows.withLock { $0 }
        try indexer.index.upsert(stored)
        try indexer.recordTypeAncestry(among: Set(stored.map(\.contentType)))
        summary.read += stored.count
    }
}
