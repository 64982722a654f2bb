import FileAccess
public import ContentTypes
import Foundation

/// What a run-time reader made of a file (see `DocumentGroup.init(named:readableContentTypes:detail:read:)`).
package struct RuntimeRendition: Sendable {
    package var metadata: DocumentMetadata
    package var preview: [PreviewElement]
    package var plainText: String
    package init(metadata: DocumentMetadata = DocumentMetadata(), preview: [PreviewElement], plainText: String) {
        self.metadata = metadata
        self.preview = preview
        self.plainText = plainText
    }
}

/// A document type registered for viewing, with its viewer: SwiftUI's `DocumentGroup`,
/// always read-only.
///
/// ```swift
/// DocumentGroup(viewing: MarkdownDocument.self) { configuration in
///     Title(configuration.document.title ?? "Untitled")
///     Text(configuration.document.summary)
/// }
/// ```
public struct DocumentGroup: Sendable {
    /// The document type's name, which identifies the group in fingerprints, reader
    /// revisions and the index: a built-in type's own name (`MarkdownDocument`), any other
    /// type's name with its module (`LogDocent.LogDocument`), so an app's `PDFDocument`
    /// never passes for the built-in one.
    package let documentTypeName: String

    /// The name `documentTypeName` gives `type`.
    package static func name(of type: Any.Type) -> String {
        let qualified = String(reflecting: type)
        return qualified.hasPrefix(builtInModule + ".") ? String(describing: type) : qualified
    }

    /// The module of Docent's built-in document types.
    static let builtInModule = "Documents"
    /// The types its documents open.
    public let readableContentTypes: [UTType]
    /// The renditions its documents produce.
    public let writableContentTypes: [UTType]
    /// Whether the type is a `ReferenceFileDocument`.
    package let isReferenceType: Bool
    /// Whether its documents are opened in a helper process, under the time and memory
    /// budgets, rather than in the indexer's own: for readers built on C parsers of untrusted
    /// formats (PDF, archives, mail), which can crash or hang on a hostile file.
    package private(set) var runsIsolated = false
    /// The reader's revision: raised when what it makes of a file changes (new fields, better
    /// text), so an index made by an older one reads that reader's files again.
    public private(set) var revision = 1
    /// Whether the type left `writableContentTypes` to its default (its readable types): then,
    /// when none of them is text, its preview's words are its plain-text rendition, so a
    /// reader written SwiftUI's way (a JSON or PDF type with no export of its own) is not
    /// indexed with no text.
    package var previewIsDefaultText: Bool { writableContentTypes == readableContentTypes }
    /// What else makes this reader's output what it is (an external viewer's command).
    package private(set) var fingerprintDetail = ""

    typealias Opener = @Sendable (FileDocumentReadConfiguration, DocumentSelection) throws -> OpenedDocument
    let open: Opener

    /// A group that opens `Document` files read-only and previews them with `viewer`.
    public init<Document: FileDocument>(
        viewing documentType: Document.Type,
        @PreviewBuilder viewer: @escaping @Sendable (FileDocumentConfiguration<Document>) -> [PreviewElement]
    ) {
        documentTypeName = Self.name(of: documentType)
        readableContentTypes = Document.readableContentTypes
        writableContentTypes = Document.writableContentTypes
        isReferenceType = false
        let name = documentTypeName, writable = writableContentTypes, previewText = writableContentTypes == readableContentTypes
        open = { configuration, selection in
            let document = try Document(configuration: configuration)
            let viewed = FileDocumentConfiguration(
                document: document, fileURL: configuration.file.fileURL,
                contentType: configuration.contentType, file: configuration.file)
            return OpenedDocument(
                documentTypeName: name, configuration: configuration, selection: selection,
                writableContentTypes: writable,
                metadata: (document as? any DocumentMetadataProviding)?.metadata ?? DocumentMetadata(),
                previewIsDefaultText: previewText,
                viewer: { viewer(viewed) },
                exporter: { write in try document.fileWrapper(configuration: write) })
        }
    }

    /// A group that opens `Document` files read-only and previews them with `viewer`.
    ///
    /// The viewer, the metadata and each snapshot run under the open document's lock;
    /// serialization of a snapshot runs after the lock is released, off the caller's actor.
    public init<Document: ReferenceFileDocument>(
        viewing documentType: Document.Type,
        @PreviewBuilder viewer: @escaping @Sendable (ReferenceFileDocumentConfiguration<Document>) -> [PreviewElement]
    ) {
        documentTypeName = Self.name(of: documentType)
        readableContentTypes = Document.readableContentTypes
        writableContentTypes = Document.writableContentTypes
        isReferenceType = true
        let name = documentTypeName, writable = writableContentTypes, previewText = writableContentTypes == readableContentTypes
        open = { configuration, selection in
            // The document is not Sendable (see ReferenceFileDocument): every use below is
            // under `lock`, but for serializing a snapshot, which SwiftUI also runs off the
            // document's thread and which must read only the snapshot.
            let document = LockedByCaller(try Document(configuration: configuration))
            let lock = DocumentLock()
            let viewed = LockedByCaller(ReferenceFileDocumentConfiguration(
                document: document.value, fileURL: configuration.file.fileURL,
                contentType: configuration.contentType, file: configuration.file))
            let metadata = lock.withLock { (document.value as? any DocumentMetadataProviding)?.metadata ?? DocumentMetadata() }
            return OpenedDocument(
                documentTypeName: name, configuration: configuration, selection: selection,
                writableContentTypes: writable, metadata: metadata, previewIsDefaultText: previewText,
                viewer: { lock.withLock { viewer(viewed.value) } },
                exporter: { write in
                    let snapshot = try lock.withLock { try document.value.snapshot(contentType: write.contentType) }
                    return try document.value.fileWrapper(snapshot: snapshot, configuration: write)
                })
        }
    }

    /// A group whose reader is known only at run time — an external viewer declared in
    /// `config.yaml` — rather than by a Swift type: `read` opens a file into its metadata,
    /// preview and plain-text rendition (its only writable type). `detail` is part of the
    /// fingerprint: when it changes, an index reads this group's files again.
    package init(named name: String, readableContentTypes: [UTType], detail: String,
                read: @escaping @Sendable (FileDocumentReadConfiguration) throws -> RuntimeRendition) {
        documentTypeName = name
        self.readableContentTypes = readableContentTypes
        let writable = [UTType.plainText]
        writableContentTypes = writable
        isReferenceType = false
        fingerprintDetail = detail
        open = { configuration, selection in
            let rendition = try read(configuration)
            return OpenedDocument(
                documentTypeName: name, configuration: configuration, selection: selection,
                writableContentTypes: writable, metadata: rendition.metadata,
                viewer: { rendition.preview },
                exporter: { _ in FileWrapper(regularFileWithText: rendition.plainText) })
        }
    }

    /// The same group, its documents opened in a helper process (see `runsIsolated`).
    public func isolated() -> DocumentGroup {
        var group = self
        group.runsIsolated = true
        return group
    }

    /// The same group at reader revision `revision` (see `revision`).
    public func revision(_ revision: Int) -> DocumentGroup {
        var group = self
        group.revision = revision
        return group
    }

    /// What identifies this reader's output: its revision and the types it reads. An index
    /// keeps these to tell which files an upgraded Docent should read again.
    package var fingerprint: String {
        "\(revision) " + readableContentTypes.map(\.identifier).joined(separator: ",")
            + (fingerprintDetail.isEmpty ? "" : " " + fingerprintDetail)
    }

    /// SwiftUI's editing group, accepted so existing code compiles: Docent opens these
    /// documents read-only too, and never creates the new document.
    public init<Document: FileDocument>(
        newDocument: @escaping @autoclosure () -> Document,
        @PreviewBuilder editor: @escaping @Sendable (FileDocumentConfiguration<Document>) -> [PreviewElement]
    ) {
        self.init(viewing: Document.self, viewer: editor)
    }

    /// SwiftUI's editing group for reference documents, accepted and opened read-only.
    public init<Document: ReferenceFileDocument>(
        newDocument: @escaping () -> Document,
        @PreviewBuilder editor: @escaping @Sendable (ReferenceFileDocumentConfiguration<Document>) -> [PreviewElement]
    ) {
        self.init(viewing: Document.self, viewer: editor)
    }
}

/// The lock an open reference document's viewer, metadata and snapshots run under.
final class DocumentLock: Sendable {
    private let mutex = Locked(())

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try mutex.withLock { _ in try body() }
    }
}
