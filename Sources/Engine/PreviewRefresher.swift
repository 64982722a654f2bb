package import ContentTypes
package import DocumentModel
import Documents
import FileAccess
import Foundation
package import SystemPackage
package import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// What keeping the preview cache current did with one batch of changes.
package struct PreviewRefreshSummary: Sendable, Equatable {
    /// Entries made again from the changed file.
    package var regenerated = 0
    /// Entries carried to a renamed file's new path without reading it.
    package var moved = 0
    /// Entries of files that are gone.
    package var removed = 0
}

/// Keeps the preview cache current as the watcher reports changes: a cached file that
/// changed is opened again and its entry replaced atomically, a renamed one's entry
/// follows it, a removed one's entry goes, and a rescan checks every entry beneath it.
///
/// Only files that have an entry cost anything beyond one `stat` of the entry's name.
/// Not thread-safe: one thread applies the batches.
package final class PreviewRefresher {
    package let cache: PreviewCache
    /// The opener of the entries made with its read limit (most of them; the indexer's).
    private let opener: DocumentOpener
    /// Openers for entries made with another read limit (an entry is remade with its own).
    private var others: [Int: DocumentOpener] = [:]
    /// Every entry, read once per batch at most, and only when a tree changed.
    private var entries: [(path: FilePath, entry: FilePath)]?

    package init(cache: PreviewCache, opener: DocumentOpener) {
        self.cache = cache
        self.opener = opener
    }

    package convenience init(cache: PreviewCache, documents: DocumentRegistry = AppDocuments.registry, types: UTTypeRegistry = .shared,
                            budget: DocumentBudget = Settings.defaults().budget) {
        self.init(cache: cache, opener: DocumentOpener(documents: documents, types: types, budget: budget))
    }

    /// Brings the entries `changes` touch up to date.
    package func apply(_ changes: [FileChange]) -> PreviewRefreshSummary {
        var summary = PreviewRefreshSummary()
        entries = nil
        for change in changes {
            switch change {
            case .changed(let path):
                refresh(path, summary: &summary)
            case .removed(let path):
                for (_, entry) in entries(within: path) {
                    unlink(entry.string)
                    summary.removed += 1
                    entries = nil
                }
            case .moved(let from, let to):
                for (path, entry) in entries(within: from) {
                    move(entry, to: path.replacingPrefix(from, with: to), summary: &summary)
                }
                refresh(to, summary: &summary)  // a file saved by renaming a new version over it
            case .rescan(let directory):
                for (path, _) in entries(within: directory) { refresh(path, summary: &summary) }
            }
        }
        return summary
    }

    /// Remakes `path`'s entry if it has one that no longer matches the file; removes it if
    /// the file is gone.
    func refresh(_ path: FilePath, summary: inout PreviewRefreshSummary) {
        let entry = cache.entryPath(for: path)
        guard let header = cache.readHeader(entry), header.filePath == path else { return }
        guard let status = try? FileStatus.lstat(path), status.kind != .directory else {
            unlink(entry.string)
            summary.removed += 1
            entries = nil
            return
        }
        guard header.signature.compared(to: status.signature) != .unchanged else { return }
        if regenerate(path, readLimit: header.readLimit) {
            summary.regenerated += 1
        } else {
            unlink(entry.string)
            summary.removed += 1
        }
    }

    /// Carries an entry to a renamed file's new path: kept as it is when only the name
    /// changed (same device, inode, size and modification time), else made again.
    private func move(_ entry: FilePath, to path: FilePath, summary: inout PreviewRefreshSummary) {
        defer { entries = nil }
        guard let (header, body) = cache.read(entry) else { return }
        unlink(entry.string)
        guard let status = try? FileStatus.lstat(path), status.kind != .directory else {
            summary.removed += 1
            return
        }
        if [.unchanged, .renamed].contains(header.signature.compared(to: status.signature)),
           let preview = try? JSONDecoder().decode(Extraction.self, from: body),
           cache.store(preview, for: path, status: status, readLimit: header.readLimit) {
            summary.moved += 1
        } else if regenerate(path, readLimit: header.readLimit) {
            summary.regenerated += 1
        }
    }

    /// Opens `path` read-only (`DocumentOpener`: once, in a helper for isolated groups, as
    /// the indexer reads it) and stores its preview; false when it cannot be opened.
    @discardableResult
    package func regenerate(_ path: FilePath, readLimit: Int) -> Bool {
        let opener = opener(readLimit: readLimit)
        guard let prepared = try? opener.prepare(path), let status = prepared.classification.status,
              case .success(let preview?) = opener.read(prepared, preview: true, text: false)
        else { return false }
        return cache.store(preview, for: path, status: status, readLimit: readLimit)
    }

    private func opener(readLimit: Int) -> DocumentOpener {
        if readLimit == opener.budget.readBytes { return opener }
        if let other = others[readLimit] { return other }
        let opener = self.opener
        var budget = opener.budget
        budget.readBytes = readLimit
        let other = DocumentOpener(documents: opener.documents, types: opener.types, budget: budget)
        others[readLimit] = other
        return other
    }

    /// Entries of `path` and of everything under it.
    private func entries(within path: FilePath) -> [(path: FilePath, entry: FilePath)] {
        // A plain file's own entry is found by its name, without listing the cache.
        let own = cache.entryPath(for: path)
        if cache.readHeader(own)?.filePath == path { return [(path, own)] }
        if entries == nil { entries = cache.entries() }
        return entries!.filter { $0.path.isWithin(path) }
    }
}
