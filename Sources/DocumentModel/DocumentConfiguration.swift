import ContentTypes
import Foundation

/// What a viewer of a value-type document is given: SwiftUI's `FileDocumentConfiguration`.
public struct FileDocumentConfiguration<Document: FileDocument>: Sendable {
    /// The open document.
    public let document: Document
    /// The file it was read from.
    public let fileURL: URL?
    /// Always false: Docent opens every document read-only.
    public var isEditable: Bool { false }
    /// The file's content type.
    public let contentType: UTType
    /// The file, for viewers that want its attributes.
    public let file: FileWrapper
}

/// What a viewer of a reference-type document is given: SwiftUI's
/// `ReferenceFileDocumentConfiguration`.
public struct ReferenceFileDocumentConfiguration<Document: ReferenceFileDocument>: Sendable {
    /// The open document.
    public let document: Document
    /// The file it was read from.
    public let fileURL: URL?
    /// Always false: Docent opens every document read-only.
    public var isEditable: Bool { false }
    /// The file's content type.
    public let contentType: UTType
    /// The file, for viewers that want its attributes.
    public let file: FileWrapper
}

/// The open document's place and editability, whatever its kind: SwiftUI's `DocumentConfiguration`.
public struct DocumentConfiguration: Sendable, Hashable {
    /// The file the document was read from.
    public let fileURL: URL?
    /// Always false: Docent opens every document read-only.
    public var isEditable: Bool { false }

    public init(fileURL: URL?) { self.fileURL = fileURL }
}
