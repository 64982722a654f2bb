import DocentCLI
import ArgumentParser
import ContentTypes
import DocumentModel
import Engine
import Foundation

/// `docent export FILE --as TYPE`: one of the document's renditions on standard output.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write one of a document's renditions (its plain text, Markdown as HTML, …) to standard output.",
        discussion: """
            TYPE is a content type identifier (public.plain-text), a MIME type (text/html) or a filename \
            extension (txt, html, json). When the document cannot be written as TYPE, the types it can be \
            written as are listed and the exit status is 2.
            """
    )

    @Argument(help: "The file to export.")
    var file: String

    @Option(name: .customLong("as"), help: "The rendition's type.")
    var type: String

    @Option(name: .customLong("max-bytes"), help: "Read at most this many bytes of the file (default 16 MiB).")
    var maxBytes: Int = FileWrapper.defaultReadLimit

    func run() async throws {
        Output.ignoreSIGPIPE()
        let registry = UTTypeRegistry.shared
        guard let requested = RenditionTypes.resolve(type, in: registry) else {
            throw ValidationError("'\(type)' is not a known content type, MIME type or filename extension.")
        }
        let plainText = UTType("public.plain-text", registry: registry)!
        let opened = try await Opening.open(file, readLimit: maxBytes, preview: false, text: plainText.conforms(to: requested))
        let document: OpenedDocument
        switch opened.opened {
        case .document(let opened):
            document = opened
        case .extraction(let extraction):
            // Documents read in the helper process give their plain text (what the index stores).
            guard plainText.conforms(to: requested), let text = extraction.text else {
                throw CommandFailure("\(file): \(extraction.documentType) cannot be exported as \(requested.identifier); it can be exported as: public.plain-text")
            }
            return Output.write(text)
        }
        let wrapper: FileWrapper
        do {
            wrapper = try await document.export(as: requested)
        } catch let error as DocumentExportError {
            let writable = document.writableContentTypes.map(\.identifier)
            throw CommandFailure(writable.isEmpty
                ? "\(file): \(document.documentTypeName) has no renditions to export."
                : "\(file): \(error)")
        } catch {
            throw CommandFailure("\(file): the rendition could not be made: \(error)")
        }
        guard let data = wrapper.regularFileContents else { throw CommandFailure("\(file): the rendition is empty") }
        Output.write(data)
    }
}

/// Names of rendition types, as `export --as` and the viewer take them.
package enum RenditionTypes {
    /// `name` as a type: an identifier, a MIME type, or a filename extension.
    package static func resolve(_ name: String, in registry: UTTypeRegistry) -> UTType? {
        if let type = UTType(name, registry: registry), type.isDeclared { return type }
        if name.contains("/"), let type = registry.type(mimeType: name) { return type }
        let ext = name.hasPrefix(".") ? String(name.dropFirst()) : name
        return registry.types(filenameExtension: ext).first
    }
}
