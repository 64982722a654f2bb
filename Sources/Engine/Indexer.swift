import Classifier
import ContentTypes
import Dispatch
import DocumentModel
import Documents
import Foundation
import Index
import Synchronization
import SystemPackage
import Watcher

/// What one `docent index` run did.
public struct IndexSummary: Sendable, Codable, Equatable {
    /// Files under the roots.
    public var files = 0
    /// Files read and stored (new or changed).
    public var indexed = 0
    /// Files whose `lstat` signature had not changed: no document work.
    public var unchanged = 0
    /// Rows moved to a new path (same device and inode) without re-reading.
    public var moved = 0
    /// Rows of files no longer there.
    public var removed = 0
    /// Files stored with an error.
    public var errors = 0
    public var seconds = 0.0
}

/// Brings the index in line with the files under some roots: new and changed files are
/// read (documents opened on every core), unchanged ones are skipped by their `lstat`
/// signature, renamed ones keep their rows, vanished ones leave. One writer batches rows
/// into transactions.
public final class Indexer: Sendable {
    public let index: FileIndex
    public let documents: DocumentRegistry
    public let types: UTTypeRegistry
    public let excludedDirectoryNames: Set<String>
    public let workers: Int
    public let readLimit: Int
    /// The most text stored for one file.
    public let textLimit: Int

    /// Version control internals and caches.
    public static let defaultExclusions: Set<String> = [
        ".git", ".hg", ".svn", ".bzr", "_darcs", ".cache", "__pycache__", ".build", "node_modules", ".tox", ".mypy_cache",
    ]

    public init(index: FileIndex, documents: DocumentRegistry = BuiltInDocuments.registry, types: UTTypeRegistry = .shared,
                excludedDirectoryNames: Set<String> = Indexer.defaultExclusions,
                workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                readLimit: Int = FileWrapper.defaultReadLimit, textLimit: Int = 1 << 20) {
        self.index = index
        self.documents = documents
        self.types = types
        self.excludedDirectoryNames = excludedDirectoryNames
        self.workers = max(1, workers)
        self.readLimit = readLimit
        self.textLimit = textLimit
    }

    /// Indexes the files under `roots`; `progress` is called now and then with files done so far.
    public func run(roots: [FilePath], progress: (@Sendable (Int, FilePath) -> Void)? = nil) throws -> IndexSummary {
        let start = ContinuousClock.now
        var summary = IndexSummary()
        try index.addRoots(roots.map(\.bytes))
        var todo: [(FilePath, FileStatus)] = []
        var vanished: [[UInt8]: FileSignature] = [:]
        for root in roots {
            var known = try index.signatures(under: root.bytes)
            Crawler(excludedDirectoryNames: excludedDirectoryNames).walk(root) { path in
                guard let status = try? FileStatus.lstat(path) else { return }
                summary.files += 1
                if known.removeValue(forKey: path.bytes) == status.signature {
                    summary.unchanged += 1
                } else {
                    todo.append((path, status))
                }
            }
            vanished.merge(known) { a, _ in a }
        }
        // A vanished row whose file turns up under another name (same device, inode, size and
        // modification time) moves there instead of being read again.
        var byIdentity: [FileIdentity: [UInt8]] = [:]
        for (path, signature) in vanished { byIdentity[FileIdentity(signature)] = path }
        var reads: [(FilePath, FileStatus)] = []
        for (path, status) in todo {
            if let old = byIdentity.removeValue(forKey: FileIdentity(status.signature)) {
                try index.move(from: old, to: path.bytes)
                vanished[old] = nil
                summary.moved += 1
            } else {
                reads.append((path, status))
            }
        }
        summary.removed = try index.remove(Array(vanished.keys))
        let (indexed, errors) = try read(reads, progress: progress)
        summary.indexed = indexed
        summary.errors = errors
        for root in roots { try index.markIndexed(root.bytes) }
        summary.seconds = (ContinuousClock.now - start).seconds
        return summary
    }

    /// Reads `files` on `workers` threads, each with its own loader, into batched writes.
    private func read(_ files: [(FilePath, FileStatus)], progress: (@Sendable (Int, FilePath) -> Void)?) throws -> (Int, Int) {
        guard !files.isEmpty else { return (0, 0) }
        let next = Atomic<Int>(0)
        let state = Mutex(WriteState())
        let batchSize = 256
        let indexer = self
        let work = files
        DispatchQueue.concurrentPerform(iterations: min(workers, files.count)) { _ in
            guard let loader = try? DocumentLoader(documents: indexer.documents, types: indexer.types, readLimit: indexer.readLimit)
            else { return }
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < work.count else { break }
                let row = indexer.row(for: work[i].0, status: work[i].1, loader: loader)
                let full: [IndexedFile]? = state.withLock { state in
                    state.pending.append(row)
                    state.done += 1
                    if row.errorKind != nil { state.errors += 1 }
                    guard state.pending.count >= batchSize else { return nil }
                    defer { state.pending.removeAll(keepingCapacity: true) }
                    return state.pending
                }
                if let full { indexer.store(full, into: state) }
                if i % 64 == 0 { progress?(i, work[i].0) }
            }
        }
        let rest = state.withLock { state in
            defer { state.pending.removeAll() }
            return state.pending
        }
        store(rest, into: state)
        return try state.withLock { state in
            if let failure = state.failure { throw failure }
            return (state.done, state.errors)
        }
    }

    private func store(_ rows: [IndexedFile], into state: borrowing Mutex<WriteState>) {
        guard !rows.isEmpty else { return }
        do { try index.upsert(rows) } catch { state.withLock { $0.failure = error } }
    }

    /// One file's row: classified, opened, its text and metadata; failures recorded on it.
    func row(for path: FilePath, status: FileStatus, loader: DocumentLoader) -> IndexedFile {
        var row = IndexedFile(path: path.bytes, device: Int64(bitPattern: status.device), inode: Int64(bitPattern: status.inode),
                              size: status.size, modified: status.modified, changed: status.changed, contentType: "public.item")
        let prepared: PreparedFile
        do {
            prepared = try loader.prepare(path)
        } catch {
            row.errorKind = "unreadable"
            row.errorMessage = error.message
            return row
        }
        row.contentType = prepared.classification.contentType.identifier
        row.evidence = prepared.classification.reason.code
        if let error = prepared.classification.error {
            row.errorKind = "unreadable"
            row.errorMessage = "\(error)"
        }
        do {
            let document = try documents.openSynchronously(prepared.configuration)
            row.documentType = document.documentTypeName
            row.title = document.metadata.title
            row.metadata = Self.json(document.metadata.fields)
            if let text = try document.plainTextSynchronously() { row.text = Self.bounded(text, to: textLimit) }
            if row.errorKind == nil, let problem = document.metadata.problems.first(where: { $0.severity == .error }) {
                row.errorKind = problem.kind
                row.errorMessage = problem.message
            }
        } catch {
            row.errorKind = row.errorKind ?? "unopenable"
            row.errorMessage = row.errorMessage ?? "\(error)"
        }
        return row
    }

    static func json(_ fields: [MetadataField]) -> String? {
        guard !fields.isEmpty else { return nil }
        var object: [String: String] = [:]
        for field in fields { object[field.key] = field.value.description }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `text` cut to at most `limit` UTF-8 bytes, on a character boundary.
    static func bounded(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: limit)
        while !text.indices.contains(end), end > text.startIndex { end = text.utf8.index(before: end) }
        return String(text[..<end])
    }
}

private struct WriteState {
    var pending: [IndexedFile] = []
    var done = 0
    var errors = 0
    var failure: (any Error)?
}

/// What survives a rename: device, inode, size and modification time (the change time moves).
private struct FileIdentity: Hashable {
    var device: Int64, inode: Int64, size: Int64, modified: Int64
    init(_ s: FileSignature) { (device, inode, size, modified) = (s.device, s.inode, s.size, s.modified) }
}

extension FileStatus {
    /// The fields the index compares.
    var signature: FileSignature {
        FileSignature(device: Int64(bitPattern: device), inode: Int64(bitPattern: inode), size: size, modified: modified, changed: changed)
    }
}

extension FilePath {
    /// The path's bytes.
    var bytes: [UInt8] { withPlatformString { Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map { UInt8(bitPattern: $0) } } }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
