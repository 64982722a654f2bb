package import ContentTypes
package import Foundation

/// A document opened through a `DocumentGroup`, whatever its type: its metadata, its preview
/// and its renditions.
package final class OpenedDocument: Sendable {
    /// The Swift type that read the file (`MarkdownDocument`).
    package let documentTypeName: String
    /// The file's content type.
    package let contentType: UTType
    /// The file, as read.
    package let file: FileWrapper
    /// Why this document type was chosen.
    package let selection: DocumentSelection
    /// The renditions `export(as:)` can produce.
    package let writableContentTypes: [UTType]
    /// Title, fields and problems, including those met while choosing the document type
    /// (a preferred type that failed, a file read only in part).
    package let metadata: DocumentMetadata

    /// Whether, having no text rendition of its own, its preview's words stand for one (see
    /// `DocumentGroup.previewIsDefaultText`).
    package let previewIsDefaultText: Bool
    private let viewer: @Sendable () -> [PreviewElement]
    private let exporter: @Sendable (FileDocumentWriteConfiguration) throws -> FileWrapper
    private let openingProblems: [DocumentProblem]

    init(documentTypeName: String, configuration: FileDocumentReadConfiguration, selection: DocumentSelection,
         writableContentTypes: [UTType], metadata: DocumentMetadata, previewIsDefaultText: Bool = false,
         viewer: @escaping @Sendable () -> [PreviewElement],
         exporter: @escaping @Sendable (FileDocumentWriteConfiguration) throws -> FileWrapper) {
        self.documentTypeName = documentTypeName
        self.contentType = configuration.contentType
        self.file = configuration.file
        self.selection = selection
        self.writableContentTypes = writableContentTypes
        self.metadata = metadata
        self.previewIsDefaultText = previewIsDefaultText
        self.viewer = viewer
        self.exporter = exporter
        self.openingProblems = []
    }

    private init(_ other: OpenedDocument, adding problems: [DocumentProblem]) {
        documentTypeName = other.documentTypeName
        contentType = other.contentType
        file = other.file
        selection = other.selection
        writableContentTypes = other.writableContentTypes
        previewIsDefaultText = other.previewIsDefaultText
        var metadata = other.metadata
        metadata.problems = problems + metadata.problems
        self.metadata = metadata
        viewer = other.viewer
        exporter = other.exporter
        openingProblems = problems + other.openingProblems
    }

    /// The same document with `problems` noted first.
    func adding(_ problems: [DocumentProblem]) -> OpenedDocument {
        problems.isEmpty ? self : OpenedDocument(self, adding: problems)
    }

    /// The file's URL.
    package var fileURL: URL? { file.fileURL }

    /// The document's preview: notes on how it was opened, then what its viewer shows.
    package func preview() -> Preview {
        Preview(elements: openingProblems.map { .note($0.severity, $0.message) } + viewer())
    }

    /// The writable type that serves a request for `type`: the type itself, or the first
    /// writable type that conforms to it.
    package func writableType(for type: UTType) -> UTType? {
        writableContentTypes.first { $0 == type } ?? writableContentTypes.first { $0.conforms(to: type) }
    }

    /// The rendition of type `type`, made off the caller's actor.
    ///
    /// - Throws: `DocumentExportError.notWritable` when the document cannot produce `type`.
    package func export(as type: UTType) async throws -> FileWrapper {
        try exportSynchronously(as: type)
    }

    /// `export(as:)` on the calling thread, for worker threads that are not in a task.
    package func exportSynchronously(as type: UTType) throws -> FileWrapper {
        guard let writable = writableType(for: type) else {
            throw DocumentExportError.notWritable(type, documentTypeName: documentTypeName, writable: writableContentTypes)
        }
        // The file as it is, only for a rendition of its own type (Apple's contract: what may be
        // updated in place). Code that returns `existingFile` must not pass PDF bytes off as text.
        return try exporter(FileDocumentWriteConfiguration(contentType: writable, existingFile: writable == contentType ? file : nil))
    }

    /// The document's `public.plain-text` rendition as a string — for a type that left its
    /// writable types to their default and has none that is text, its preview's words — or
    /// nil when it has none.
    package func plainText() async throws -> String? {
        try plainTextSynchronously()
    }

    /// `plainText()` on the calling thread.
    package func plainTextSynchronously() throws -> String? {
        guard writableType(for: .plainText(in: contentType.registry)) != nil else {
            return previewIsDefaultText ? Preview(elements: viewer()).plainText : nil
        }
        let wrapper = try exportSynchronously(as: .plainText(in: contentType.registry))
        return try? wrapper.readText()
    }
}

/// A rendition could not be produced.
package enum DocumentExportError: Error, Sendable, CustomStringConvertible {
    /// The document type does not write that type.
    case notWritable(UTType, documentTypeName: String, writable: [UTType])

    package var description: String {
        switch self {
        case .notWritable(let type, let name, let writable):
            "\(name) cannot be exported as \(type.identifier); it can be exported as: "
                + writable.map(\.identifier).joined(separator: ", ")
        }
    }
}

extension UTType {
    /// `public.plain-text` in `registry`.
    static func plainText(in registry: UTTypeRegistry) -> UTType {
        UTType("public.plain-text", registry: registry) ?? .plainText
    }
}
