package import FileAccess
import Classifier
package import ContentTypes
package import DocumentModel
import Documents
import Foundation
package import Index
package import SystemPackage
package import Watcher

/// What one `docent index` run did.
package struct IndexSummary: Sendable, Codable, Equatable {
    /// Files under the roots.
    package var files = 0
    /// Files read and stored (new or changed).
    package var indexed = 0
    /// Files whose `lstat` signature had not changed: no document work.
    package var unchanged = 0
    /// Rows moved to a new path (same device and inode) without re-reading.
    package var moved = 0
    /// Large files read as byte-identical copies of one read just before (not opened again).
    package var identicalCopies = 0
    /// Rows of files no longer there.
    package var removed = 0
    /// Files stored with an error, and directories that could not be read.
    package var errors = 0
    package var seconds = 0.0
    /// Files classified by this process during the run (each once; an unchanged or moved one
    /// not at all): `docent-bench` reports it per file.
    package var classified = 0
    /// Of `seconds`, the store's upkeep at the end of a run that read many files (SQLite: merging
    /// the inverted index into one segment; PostgreSQL: VACUUM ANALYZE), or nil.
    package var mergeSeconds: Double?
}

/// How far a run has got, reported now and then.
package struct IndexProgress: Sendable {
    /// Files found so far.
    package var found: Int
    /// Files dealt with so far (unchanged, moved or read).
    package var done: Int
    /// The directory the crawl is in.
    package var directory: FilePath
    /// Time since the run started.
    package var elapsed: Duration
}

/// Brings the index in line with the files under some roots: new and changed files are
/// read (documents opened on every core), unchanged ones are skipped by their `lstat`
/// signature, renamed ones keep their rows, vanished ones leave. One writer batches rows
/// into transactions.
///
/// The crawl goes one directory at a time, comparing it with that directory's rows, and
/// hands files to the workers through a bounded queue, so memory does not grow with the
/// size of the tree.
package final class Indexer: Sendable {
    package let index: any IndexStore
    package let documents: DocumentRegistry
    /// The content types, built on first use: a run that reads no file (nothing changed)
    /// never parses the shared-mime-info database.
    package var types: UTTypeRegistry { lazyTypes.value }
    /// Whether `types` has been built.
    package var typesLoaded: Bool { lazyTypes.isMade }
    private let lazyTypes: Lazy<UTTypeRegistry>
    package let exclusions: Exclusions
    package let workers: Int
    package let readLimit: Int
    /// The most text stored for one file.
    package let textLimit: Int
    /// The one way files are read (classified once, opened once, in process or in a helper).
    package let opener: DocumentOpener
    /// The preview cache `docent watch` keeps: a changed file with an entry has its preview
    /// made from the reading that makes its row.
    package let previews: PreviewCache?
    /// Closed while Docent is paused: reads and comparisons wait at it.
    package let gate = WorkGate()
    /// Network or FUSE mounts that are unmounted now: left out of crawls, their rows kept
    /// until they return (set by the watcher).
    package let offline = Locked<Set<FilePath>>([])
    /// Whether what falls behind as rows are written (SQLite's ranked lists) is left to an
    /// idle upkeep after the run (`docent watch`'s `IndexStore.tidyWhileIdle`) instead of
    /// being made before it returns (`docent index`): a watcher reports "watching" sooner.
    package let upkeepWhileIdle: Bool

    package init(index: any IndexStore, documents: DocumentRegistry = AppDocuments.registry,
                types: @autoclosure @escaping @Sendable () -> UTTypeRegistry = .shared,
                settings: Settings = .defaults(), workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                previews: PreviewCache? = nil, upkeepWhileIdle: Bool = false) {
        self.index = index
        self.upkeepWhileIdle = upkeepWhileIdle
        self.documents = documents
        let lazyTypes = Lazy(types)
        self.lazyTypes = lazyTypes
        self.previews = previews
        opener = DocumentOpener(documents: documents, types: lazyTypes.value, budget: settings.budget)
        // Docent's own files are never indexed: the index, the preview cache, the types cache.
        // The types cache and the descriptions kept beside it.
        let typesCache = RegistryCache.path(environment: ProcessInfo.processInfo.environment).map { [FilePath($0), FilePath(RegistryCache.namesPath($0))] }
        self.exclusions = Exclusions(settings.exclude, paths: index.ownFiles + [PreviewCache.defaultDirectory()] + (typesCache ?? []),
                                     markers: settings.markers)
        self.workers = max(1, workers)
        self.readLimit = settings.readBytes
        self.textLimit = settings.textBytes
    }

    /// Files read in one run after which the inverted index is merged into one segment.
    static let optimizeAfter = 1000

    /// Indexes the files under `roots` (remembered as roots unless `remember` is false:
    /// a rescan of one directory); `progress` is called about ten times a second.
    package func run(roots: [FilePath], remember: Bool = true, progress: (@Sendable (IndexProgress) -> Void)? = nil) throws -> IndexSummary {
        try reclassifyIfRulesChanged()
        try rereadChangedReaders()
        let classifiedBefore = Classifier.classifiedFiles
        let run = IndexRun(indexer: self, progress: progress)
        // An index filled from empty has nothing at stake that the run would not write again:
        // its commits need not wait for the disk until the run is over (`fillingEmptyIndex`).
        let filling = !run.indexHadRows
        if filling { try index.fillingEmptyIndex(true) }
        do {
            var summary = try indexRoots(in: run, roots: roots, remember: remember)
            if filling { try index.fillingEmptyIndex(false) }
            summary.seconds = (ContinuousClock.now - run.start).seconds
            summary.classified = Classifier.classifiedFiles - classifiedBefore
            return summary
        } catch {
            if filling { try? index.fillingEmptyIndex(false) }
            throw error
        }
    }

    private func indexRoots(in run: IndexRun, roots: [FilePath], remember: Bool) throws -> IndexSummary {
        if remember { try index.addRoots(roots.map(\.bytes)) }
        var failure: (any Error)?
        do {
            for root in roots {
                try run.reconcile(root: root)
            }
        } catch {
            failure = error
        }
        var summary = try run.finish(roots: failure == nil ? roots : [])
        if let failure { throw failure }
        for root in roots { try index.markIndexed(root.bytes) }
        try recordTypeAncestry(refreshingAll: true)
        // After a run that wrote much (a cold index above all), the store's upkeep: SQLite's
        // inverted index merged into one segment (each term lookup then probes one b-tree
        // instead of a dozen), PostgreSQL's statistics and GIN pending list.
        if summary.indexed >= Self.optimizeAfter {
            let merging = ContinuousClock.now
            if try index.upkeepAfterLargeRun() { summary.mergeSeconds = (ContinuousClock.now - merging).seconds }
        }
        // After any run that wrote: what has fallen behind (SQLite's ranked lists).
        if summary.indexed + summary.moved + summary.removed > 0, !upkeepWhileIdle {
            try index.upkeepAfterRun()
        }
        return summary
    }
}

extension Indexer {
    /// Records the conformance of the content types the index holds without it (`docent
    /// search type:…` reads it); the type registry is built only if there are any. With
    /// `refreshingAll`, when the registry was built anyway, every type's is recorded again
    /// (a changed declaration takes effect at the next run that reads a file). With `among`,
    /// only those types are looked at (a live batch's: no scan of every row per batch).
    package func recordTypeAncestry(refreshingAll: Bool = false, among candidates: Set<String>? = nil) throws {
        let missing: [String]
        if let candidates {
            missing = Array(candidates.subtracting(try index.typesWithAncestry(among: candidates)))
        } else {
            missing = refreshingAll && typesLoaded ? try index.contentTypes() : try index.contentTypesWithoutAncestry()
        }
        guard !missing.isEmpty else { return }
        var ancestry: [String: [String]] = [:]
        for identifier in missing {
            // Dynamic types match only by their own identifier, as with the registry's subtypes.
            if let type = types.type(identifier: identifier), !type.isDynamic {
                ancestry[identifier] = [identifier] + type.orderedSupertypes.map(\.identifier)
            } else {
                ancestry[identifier] = [identifier]
            }
        }
        try index.recordTypeAncestry(ancestry)
    }

    /// The classification rules in force: the classifier's revision and everything the type
    /// registry is built from (Docent's declarations, the shared-mime-info files, the user's).
    static var classificationFingerprint: String {
        "\(Classifier.revision);\(UTTypeRegistry.inputsFingerprint())"
    }

    /// When the classification rules differ from those that typed the rows (an upgraded Docent,
    /// a changed shared-mime-info database or user declarations; an index made before rules
    /// were recorded), classifies every file again and marks those whose type changed for
    /// reading again; returns how many were marked.
    @discardableResult
    func reclassifyIfRulesChanged() throws -> Int {
        let current = Self.classificationFingerprint
        let stored = try index.classifierFingerprint()
        guard stored != current else { return 0 }
        var changed: [[UInt8]] = []
        var classifier: Classifier?
        var last: [UInt8]?
        // A page of rows at a time: a million rows held at once cost 1.5 GB.
        while case let rows = try index.typedFiles(after: last, limit: 10_000), let end = rows.last {
            if classifier == nil { classifier = try Classifier(registry: types) }
            for row in rows {
                // A file that is gone or unreadable is left to the reconcile, and a gone one is
                // not classified at all: its name alone cost ~1.5 ms in a debug build, and an
                // old index's rows of files deleted since held a watcher's start for seconds.
                let path = FilePath(bytes: row.path)
                guard (try? FileStatus.lstat(path)) != nil else { continue }
                let result = classifier!.classify(path)
                if result.status != nil, result.error == nil, result.contentType.identifier != row.contentType { changed.append(row.path) }
            }
            last = end.path
        }
        return try index.rereadRows(paths: changed, classifierFingerprint: current)
    }

    /// When the readers differ from those that made the index (an upgraded Docent), marks
    /// the files they concern for reading again; returns how many were marked.
    @discardableResult
    func rereadChangedReaders() throws -> Int {
        let stored = try index.readerFingerprints()
        let current = readerFingerprints
        let changed = stored.map { stored in
            Set(current.keys.filter { stored[$0] != current[$0] }).union(stored.keys.filter { current[$0] == nil })
        } ?? Set(current.keys)
        guard !changed.isEmpty else { return 0 }
        // Content types whose reader is now a changed one (a type that had only the generic
        // reader and now has its own).
        let types = try index.contentTypes().filter { identifier in
            guard let type = self.types.type(identifier: identifier), let selection = documents.selection(for: type) else { return false }
            return changed.contains(selection.group.documentTypeName)
        }
        return try index.rereadRows(documentTypes: changed, contentTypes: Set(types), fingerprints: current)
    }

    /// The readers' fingerprints as this indexer reads: with OCR on, those of the readers of
    /// images and PDFs carry its languages, so turning OCR on (or changing its languages, or
    /// turning it off) reads their files again — and nothing else.
    var readerFingerprints: [String: String] {
        var fingerprints = documents.fingerprints
        guard let ocr = opener.budget.ocr else { return fingerprints }
        let readers = Set(OCR.types.compactMap { documents.selection(for: $0)?.group.documentTypeName })
        for name in readers { fingerprints[name]? += " " + ocr.tesseractLanguages + " ocr" }
        return fingerprints
    }
}

extension IndexStore {
    /// The database and the files beside it that Docent writes: never indexed nor watched,
    /// even when the index lies under a root (indexing them would feed on itself).
    package var ownFiles: [FilePath] {
        (FileIndex.sideFileSuffixes + [".watch.json.tmp"]).map { FilePath(path + $0) }
    }
}

extension FileStatus {
    /// The fields the index compares.
    package var signature: FileSignature {
        FileSignature(device: Int64(bitPattern: device), inode: Int64(bitPattern: inode), size: size, modified: modified, changed: changed)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A value made on first use, once, whichever thread asks first.
final class Lazy<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let cell = Locked<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    var value: Value {
        cell.withLock { cell in
            if let value = cell { return value }
            let value = make()
            cell = value
            return value
        }
    }

    var isMade: Bool { cell.withLock { $0 != nil } }
}
