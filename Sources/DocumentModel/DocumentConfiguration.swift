public import ContentTypes
public import Foundation

/// What a viewer of a value-type document is given: SwiftUI's `FileDocumentConfiguration`.
public struct FileDocumentConfiguration<Document: FileDocument>: Sendable {
    /// The open document; `$document` is it as a read-only binding (SwiftUI's), for viewer
    /// code written to pass one along.
    @DocumentBinding public var document: Document
    /// The file it was read from.
    public let fileURL: URL?
    /// Always false: Docent opens every document read-only.
    public var isEditable: Bool { false }
    /// The file's content type.
    public let contentType: UTType
    /// The file, for viewers that want its attributes.
    public let file: FileWrapper
    /// The document's place and editability (SwiftUI's environment `documentConfiguration`).
    public var documentConfiguration: DocumentConfiguration { DocumentConfiguration(fileURL: fileURL) }
}

/// What a viewer of a reference-type document is given: SwiftUI's
/// `ReferenceFileDocumentConfiguration`.
public struct ReferenceFileDocumentConfiguration<Document: ReferenceFileDocument> {
    /// The open document; `$document` is it as a read-only binding (SwiftUI's), for viewer
    /// code written to pass one along.
    @DocumentBinding public var document: Document
    /// The file it was read from.
    public let fileURL: URL?
    /// Always false: Docent opens every document read-only.
    public var isEditable: Bool { false }
    /// The file's content type.
    public let contentType: UTType
    /// The file, for viewers that want its attributes.
    public let file: FileWrapper
    /// The document's place and editability (SwiftUI's environment `documentConfiguration`).
    public var documentConfiguration: DocumentConfiguration { DocumentConfiguration(fileURL: fileURL) }
}

/// The open document's place and editability, whatever its kind: SwiftUI's `DocumentConfiguration`.
public struct DocumentConfiguration: Sendable, Hashable {
    /// The file the document was read from.
    public let fileURL: URL?
    /// Always false: Docent opens every document read-only.
    public var isEditable: Bool { false }

    /// A configuration for the file at `fileURL`.
    public init(fileURL: URL?) { self.fileURL = fileURL }
}

/// A read-only binding, so viewer code that passes `$document` (or `$document.someField`)
/// along compiles: reading works, writing is ignored — Docent never changes a document.
@dynamicMemberLookup
public struct Binding<Value>: @unchecked Sendable {
    // Unchecked: the value is only read, and a document is Sendable (value documents) or
    // read under its lock (reference documents).
    /// The value bound to; writing through a binding does nothing (documents are read-only).
    public let wrappedValue: Value

    /// A binding to `value`.
    public init(_ value: Value) { wrappedValue = value }

    /// A binding that always reads `value`.
    public static func constant(_ value: Value) -> Binding<Value> { Binding(value) }

    /// A binding to one of the value's properties.
    public subscript<Subject>(dynamicMember keyPath: KeyPath<Value, Subject>) -> Binding<Subject> {
        Binding<Subject>(wrappedValue[keyPath: keyPath])
    }
}

/// The `document` of a configuration: read as it is, and projected (`$document`) as a
/// read-only `Binding`, as SwiftUI's configurations offer it.
@propertyWrapper
public struct DocumentBinding<Value> {
    /// The document.
    public let wrappedValue: Value
    /// The document, wrapped.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    /// A read-only binding to the document (`$document`), with bindings to its properties.
    public var projectedValue: Binding<Value> { Binding(wrappedValue) }
}

extension DocumentBinding: Sendable where Value: Sendable {}
