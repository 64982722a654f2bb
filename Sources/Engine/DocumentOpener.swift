import Classifier
package import ContentTypes
package import DocumentModel
import Documents
import FileAccess
import Foundation
package import SystemPackage

/// The one way a file is read, for every consumer (`docent index`, the live indexer, the
/// preview cache, the viewer, `preview` and `export`, DocentKit apps): the file is classified
/// once, its reader chosen once, and it is opened once — the descriptor the classifier
/// opened is the one the document reads, in this process or in a helper process, which is
/// handed that descriptor (`SCM_RIGHTS`) and the decided type instead of a path.
///
/// Thread-safe: classifiers (each with its libmagic handle) are kept in a pool, and the
/// helpers are the process's one pool for the budget.
package final class DocumentOpener: @unchecked Sendable {
    // Unchecked: `idle` is touched only under its lock; a loader is used by one thread at a time.
    /// The viewing groups documents are opened with.
    package let documents: DocumentRegistry
    /// The content types, built on first use (a run that reads nothing never parses them).
    package var types: UTTypeRegistry { lazyTypes.value }
    private let lazyTypes: Lazy<UTTypeRegistry>
    /// The budgets documents are read under (the read limit, the text kept, the helper's).
    package let budget: DocumentBudget
    /// Helper processes for readers that run isolated (and OCR).
    package let helpers: HelperPool
    private let idle = Locked([DocumentLoader]())

    package init(documents: DocumentRegistry = AppDocuments.registry, types: @autoclosure @escaping @Sendable () -> UTTypeRegistry = .shared,
                budget: DocumentBudget) {
        self.documents = documents
        lazyTypes = Lazy(types)
        self.budget = budget
        helpers = HelperPool.shared(budget)
    }

    /// Where a prepared file is read.
    package enum Reader: Sendable, Equatable {
        /// In this process (Swift readers, and C libraries trusted in process).
        case inProcess
        /// In a helper process, under the time and memory budgets.
        case helper
    }

    /// The one rule for where a file is read: in a helper when its group runs isolated, or
    /// when its text is asked for and OCR is on and applies to its type (Tesseract and
    /// Leptonica are C over untrusted pictures); else in this process. Nil: no reader.
    package func reader(for prepared: PreparedFile, text: Bool) -> Reader? {
        guard let selection = prepared.selection else { return nil }
        if selection.group.runsIsolated { return .helper }
        if text, budget.ocr != nil, OCR.applies(to: prepared.classification.contentType) { return .helper }
        return .inProcess
    }

    /// Classifies the file at `path` (one `lstat`, one opening, one bounded read) and keeps
    /// it open for its reading.
    ///
    /// - Throws: `FileReadError` when the path cannot be examined at all (it is gone), or
    ///   libmagic cannot be loaded.
    package func prepare(_ path: FilePath) throws(FileReadError) -> PreparedFile {
        let loader: DocumentLoader
        if let kept = idle.withLock({ $0.popLast() }) {
            loader = kept
        } else {
            do {
                loader = try DocumentLoader(documents: documents, types: types, readLimit: budget.readBytes)
            } catch {
                throw FileReadError(path: path, errno: nil, message: "\(error)")
            }
        }
        defer { idle.withLock { $0.append(loader) } }
        return try loader.prepare(path)
    }

    /// Reads `prepared` once: what is asked of it (its preview, its text cut at `textBytes`,
    /// the budget's by default) with its title, metadata and problems; nil when the file went
    /// away while being read, or why nothing could be read.
    package func read(_ prepared: PreparedFile, preview: Bool, text: Bool, textBytes: Int? = nil) -> Result<Extraction?, ExtractionFailure> {
        let textBytes = textBytes ?? budget.textBytes
        switch reader(for: prepared, text: text) {
        case nil:
            return .failure(.unopenable("no document type reads \(prepared.classification.contentType.identifier)"))
        case .helper:
            return helpers.extract(prepared, preview: preview, text: text, textBytes: textBytes)
        case .inProcess:
            do {
                let document = try documents.openSynchronously(prepared.configuration)
                return .success(try Extraction(document, preview: preview, text: text, textBytes: textBytes))
            } catch {
                return .failure(.unopenable("\(error)"))
            }
        }
    }

    /// Opens `prepared` as a document in this process, for what only a live document gives
    /// (its renditions): nil when its reader runs in a helper; the error when none reads it.
    package func openInProcess(_ prepared: PreparedFile) async throws(DocumentOpenError) -> OpenedDocument? {
        guard reader(for: prepared, text: false) != .helper else { return nil }
        return try await prepared.open(in: documents)
    }
}
