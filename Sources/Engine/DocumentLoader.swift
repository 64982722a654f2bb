package import Classifier
package import ContentTypes
package import DocumentModel
import Documents
import Foundation
package import SystemPackage

/// One file's trip from path to open document: `lstat`, classify, wrap the bytes already
/// read, choose the viewing group, open read-only.
///
/// Not thread-safe (it owns a classifier, and so a libmagic handle): one per worker.
package final class DocumentLoader {
    /// The viewing groups documents are opened with.
    package let documents: DocumentRegistry
    /// The most bytes of one file a document reads.
    package let readLimit: Int
    private let classifier: Classifier

    /// A loader with its own classifier.
    package init(documents: DocumentRegistry = AppDocuments.registry, types: UTTypeRegistry = .shared,
                readLimit: Int = FileWrapper.defaultReadLimit) throws {
        self.documents = documents
        self.readLimit = readLimit
        do {
            classifier = try Classifier(registry: types)
        } catch {
            throw EngineError(message: "libmagic could not be loaded: \(error.message)")
        }
    }

    /// Classifies the file at `path` and prepares what its document will be read from: the
    /// file stays open from its classifying to its reading (`DocumentOpener`), never opened again.
    ///
    /// - Throws: `FileReadError` when the path cannot be examined at all (it does not exist).
    package func prepare(_ path: FilePath) throws(FileReadError) -> PreparedFile {
        let classification = classifier.classify(path, keepingOpen: true)
        guard let status = classification.status else {
            throw FileReadError(path: path, errno: classification.error, message: classification.error.map { "\($0)" } ?? "cannot be examined")
        }
        let wrapper = try FileWrapper(
            path: path, readLimit: readLimit, status: status, knownPrefix: classification.prefix?.bytes,
            knownPrefixIsWholeFile: classification.prefix?.isWholeFile ?? false, openFile: classification.file)
        let selection = documents.selection(for: classification.contentType)
        var description: String?
        if selection?.group.documentTypeName == DocumentGroup.name(of: GenericDocument.self), let prefix = classification.prefix {
            // Only the fallback shows libmagic's description, so only it pays for the second pass.
            description = classifier.classify(bytes: prefix.bytes, fileName: path.lastComponent?.string ?? "", describe: true)
                .magic?.description
        }
        let configuration = FileDocumentReadConfiguration(
            contentType: classification.contentType, file: wrapper, contentDescription: description)
        return PreparedFile(classification: classification, configuration: configuration, selection: selection)
    }

    /// What a helper process reads: the open file another process handed over, of the type
    /// that process decided (the helper never classifies again, so the row's type and reader
    /// are the ones the indexer chose).
    func prepare(_ path: FilePath, handed file: ReadOnlyFile, contentType: UTType, description: String?) throws(FileReadError) -> PreparedFile {
        let wrapper = try FileWrapper(path: path, readLimit: readLimit, status: file.status, openFile: file)
        let configuration = FileDocumentReadConfiguration(contentType: contentType, file: wrapper, contentDescription: description)
        let classification = Classification(decided: contentType, path: path, status: file.status, file: file)
        return PreparedFile(classification: classification, configuration: configuration, selection: documents.selection(for: contentType))
    }
}

/// A classified file, ready to open.
package struct PreparedFile: Sendable {
    /// What the classifier found.
    package let classification: Classification
    /// What the document is read from.
    package let configuration: FileDocumentReadConfiguration
    /// The group that will open it first.
    package let selection: DocumentSelection?

    /// Opens the document (off the caller's actor), falling back to less specific groups.
    package func open(in documents: DocumentRegistry) async throws(DocumentOpenError) -> OpenedDocument {
        try await documents.open(configuration)
    }
}

/// A failure of the pipeline itself (not of one file).
package struct EngineError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
