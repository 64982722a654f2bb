import DocumentModel
import Foundation
import SystemPackage

extension OpenDocumentAction {
    /// An action that opens files as `docent` does — classified, read by the running
    /// program's groups (an app's, then the built-in ones) — SwiftUI's `openDocument` from
    /// the environment, without an environment.
    package convenience init() {
        self.init { url in
            let documents = AppDocuments.registry
            return try await DocumentLoader(documents: documents).prepare(FilePath(url.path)).open(in: documents)
        }
    }
}
