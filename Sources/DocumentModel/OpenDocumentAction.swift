import FileAccess
public import Foundation
import SystemPackage

/// Opens documents by URL, keeping each open once: SwiftUI's `OpenDocumentAction`.
///
/// Opening a URL that is already open returns the open document, unless the file changed on
/// disk since (device, inode, size, modification or change time differ), in which case it
/// is opened again, as SwiftUI updates a document when its configuration changes.
/// Concurrent opens of one URL share one read.
public final class OpenDocumentAction: Sendable {
    /// Reads and opens the file at a URL (the engine's pipeline: classify, choose, open).
    package typealias Loader = @Sendable (URL) async throws -> OpenedDocument

    private struct Entry {
        var task: Task<OpenedDocument, any Error>
        var status: FileStatus?
    }

    private let loader: Loader
    private let entries = Locked<[String: Entry]>([:])

    package init(loader: @escaping Loader) { self.loader = loader }

    /// Opens the document at `url`, unless it is open and unchanged: `try await
    /// openDocument(at: url)`, as written for SwiftUI.
    public func callAsFunction(at url: URL) async throws {
        _ = try await document(at: url)
    }

    /// The open document for `url`, opening it if it is not open or has changed.
    package func document(at url: URL) async throws -> OpenedDocument {
        let key = url.standardizedFileURL.path
        let status = try? FileStatus.lstat(FilePath(key))
        let task = entries.withLock { entries -> Task<OpenedDocument, any Error> in
            if let entry = entries[key], entry.status == status { return entry.task }
            let loader = self.loader
            let task = Task { try await loader(url) }
            entries[key] = Entry(task: task, status: status)
            return task
        }
        do {
            return try await task.value
        } catch {
            entries.withLock { entries in
                if entries[key]?.status == status { entries[key] = nil }
            }
            throw error
        }
    }

    /// Forgets the open document for `url`.
    public func close(_ url: URL) {
        _ = entries.withLock { $0.removeValue(forKey: url.standardizedFileURL.path) }
    }

    /// The URLs open now.
    public var openURLs: [URL] {
        entries.withLock { $0.keys.sorted().map { URL(fileURLWithPath: $0) } }
    }
}
