package import ContentTypes
import DocumentModel
import Foundation

/// Entry points for the fuzz targets in `Fuzz/`: untrusted bytes read the way the indexer
/// reads a file — the built-in registry chooses the document type for `type`, opens it, and
/// makes its preview and plain text (`Extraction`, as `docent index` and `preview` do).
package enum DocumentFuzzing {
    /// Opens `bytes` as a file of `type` (only in-process types are meant: the isolated
    /// ones run C libraries in the helper, where a crash is contained by design).
    package static func open(_ bytes: UnsafeBufferPointer<UInt8>, as type: UTType) {
        let configuration = FileDocumentReadConfiguration(contentType: type, file: FileWrapper(regularFileWithContents: Data(bytes)))
        guard let document = try? registry.openSynchronously(configuration) else { return }
        _ = document.preview()
        _ = try? document.plainTextSynchronously()
    }

    /// The content type a fuzz target reads its input as: the identifier given, resolved once.
    package static func type(_ identifier: String) -> UTType {
        guard let type = UTTypeRegistry.shared.type(identifier: identifier) else { fatalError("no content type \(identifier)") }
        return type
    }

    private static let registry = BuiltInDocuments.registry
}
