// What a document-type author needs, with one `import DocentKit`: `UTType` and the type
// registry, the document model (`FileDocument`, `ReferenceFileDocument`, `FileWrapper`,
// the configurations, `DocumentGroup`, the preview elements `Title`, `Heading`, `Text`,
// `CodeBlock`, `Table`, `Metadata`, `List`, `Image`, `Section`, `Note`), and the built-in
// document types (`MarkdownDocument`, `PDFDocument`, … and `BuiltInDocuments`).
//
// And Foundation, as SwiftUI and UniformTypeIdentifiers re-export it on Apple's platforms:
// a document type written as in Apple's documentation (`Data`, `CocoaError`, `URL`) needs
// no other import.
@_exported import Foundation
@_exported import ContentTypes
@_exported import DocumentModel
@_exported import Documents
