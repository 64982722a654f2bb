public import ContentTypes
import Foundation

/// A document type that reads a file into a value: SwiftUI's `FileDocument`.
///
/// Docent only views: `init(configuration:)` reads, and `fileWrapper(configuration:)`
/// produces one of the `writableContentTypes` as a *rendition* (the plain text the index
/// stores, `docent export`), never written back over the file.
///
/// ```swift
/// struct LogDocument: FileDocument {
///     static let readableContentTypes = [UTType("com.example.log")!]
///     static var writableContentTypes: [UTType] { [.plainText] }
///     var lines: [Substring]
///     init(configuration: ReadConfiguration) throws {
///         guard let data = configuration.file.regularFileContents else {
///             throw CocoaError(.fileReadCorruptFile)
///         }
///         ...
///     }
///     func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { ... }
/// }
/// ```
public protocol FileDocument: Sendable {
    /// The configuration handed to `init(configuration:)`.
    typealias ReadConfiguration = FileDocumentReadConfiguration
    /// The configuration handed to `fileWrapper(configuration:)`.
    typealias WriteConfiguration = FileDocumentWriteConfiguration

    /// The types this document opens.
    static var readableContentTypes: [UTType] { get }
    /// The renditions this document produces; defaults to `readableContentTypes`.
    static var writableContentTypes: [UTType] { get }

    /// Reads the document from `configuration.file`, whose type is `configuration.contentType`.
    init(configuration: ReadConfiguration) throws

    /// Produces the rendition of type `configuration.contentType`.
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper
}

extension FileDocument {
    public static var writableContentTypes: [UTType] { readableContentTypes }
}

/// A document type with reference semantics: SwiftUI's `ReferenceFileDocument`.
///
/// Renditions are made from a snapshot: Docent takes `snapshot(contentType:)` under the
/// open document's lock, then serializes it with `fileWrapper(snapshot:configuration:)`
/// off the caller's actor, so later changes to the live document do not reach a
/// rendition in progress.
///
/// As on Apple platforms it is an `ObservableObject` and need not be `Sendable` (a class
/// with `@Published var` properties is not): Docent touches the document only under its
/// lock — its reading, metadata, viewer and snapshots — and hands threads the snapshot.
public protocol ReferenceFileDocument: ObservableObject, SendableMetatype {
    /// The configuration handed to `init(configuration:)`.
    typealias ReadConfiguration = FileDocumentReadConfiguration
    /// The configuration handed to `fileWrapper(snapshot:configuration:)`.
    typealias WriteConfiguration = FileDocumentWriteConfiguration
    /// An immutable copy of the document's state, to serialize.
    associatedtype Snapshot: Sendable

    /// The types this document opens.
    static var readableContentTypes: [UTType] { get }
    /// The renditions this document produces; defaults to `readableContentTypes`.
    static var writableContentTypes: [UTType] { get }

    /// Reads the document from `configuration.file`.
    init(configuration: ReadConfiguration) throws
    /// The state to serialize as `contentType`.
    func snapshot(contentType: UTType) throws -> Snapshot
    /// Produces the rendition of type `configuration.contentType` from `snapshot`.
    func fileWrapper(snapshot: Snapshot, configuration: WriteConfiguration) throws -> FileWrapper
}

extension ReferenceFileDocument {
    public static var writableContentTypes: [UTType] { readableContentTypes }
}

/// What a document is read from: SwiftUI's `FileDocumentReadConfiguration`.
public struct FileDocumentReadConfiguration: Sendable {
    /// The file's content type, as the classifier resolved it.
    public let contentType: UTType
    /// The file, read lazily and read-only.
    public let file: FileWrapper
    /// What the content evidence says the file is, in words (libmagic's description),
    /// when known. Docent's addition, for viewers of files nobody else can read.
    public let contentDescription: String?

    /// A read of `file` as `contentType`.
    public init(contentType: UTType, file: FileWrapper, contentDescription: String? = nil) {
        self.contentType = contentType
        self.file = file
        self.contentDescription = contentDescription
    }
}

/// What a rendition is made for: SwiftUI's `FileDocumentWriteConfiguration`.
public struct FileDocumentWriteConfiguration: Sendable {
    /// The rendition's type, one of the document's `writableContentTypes`.
    public let contentType: UTType
    /// The file the document was read from.
    public let existingFile: FileWrapper?

    /// A write of a rendition of `contentType`; `existingFile` is the file when the rendition is of its own type.
    public init(contentType: UTType, existingFile: FileWrapper?) {
        self.contentType = contentType
        self.existingFile = existingFile
    }
}
