package import DocumentModel
import Foundation

/// The budgets one document runs under.
package struct DocumentBudget: Sendable, Hashable, Codable {
    /// The most bytes of the file its document type reads.
    package var readBytes: Int
    /// The most text kept from its plain-text rendition.
    package var textBytes: Int
    /// The longest it may take (enforced on documents opened in the helper process).
    package var seconds: Double
    /// The helper process's address space.
    package var memoryBytes: Int
    /// OCR of images and scanned PDF pages (in the helper, within `seconds`); nil: off.
    package var ocr: OCRSettings?

    package init(readBytes: Int, textBytes: Int, seconds: Double, memoryBytes: Int, ocr: OCRSettings? = nil) {
        (self.readBytes, self.textBytes, self.seconds, self.memoryBytes) = (readBytes, textBytes, seconds, memoryBytes)
        self.ocr = ocr
    }
}

/// What opening a document yields, in a form that crosses a process boundary: its metadata,
/// its problems, its preview and its plain text (each only when asked for).
package struct Extraction: Codable, Sendable, Equatable {
    package var contentType: String
    package var documentType: String
    package var selection: String
    package var title: String?
    package var metadata: [MetadataField]
    package var problems: [DocumentProblem]
    package var preview: Preview?
    package var text: String?
    /// The type of what the file holds (`DocumentMetadata.innerContentType`), if not its own.
    package var innerContentType: String?
    /// The document's headings (`DocumentMetadata.headings`), nil for none.
    package var headings: [String]?

    package init(contentType: String, documentType: String, selection: String, title: String?, metadata: [MetadataField],
                problems: [DocumentProblem] = [], preview: Preview?, text: String? = nil) {
        (self.contentType, self.documentType, self.selection, self.title) = (contentType, documentType, selection, title)
        (self.metadata, self.problems, self.preview, self.text) = (metadata, problems, preview, text)
    }

    /// What `document` yields; the preview and the text only when asked for (they cost the most).
    package init(_ document: OpenedDocument, preview: Bool, text: Bool, textBytes: Int) throws {
        contentType = document.contentType.identifier
        documentType = document.documentTypeName
        selection = document.selection.description
        title = document.metadata.title
        metadata = document.metadata.fields
        problems = document.metadata.problems
        innerContentType = document.metadata.innerContentType
        headings = document.metadata.headings.isEmpty ? nil : document.metadata.headings
        self.preview = preview ? document.preview() : nil
        self.text = text ? try document.plainTextSynchronously().map { Self.bounded($0, to: textBytes) } : nil
    }

    /// `text` cut to at most `limit` UTF-8 bytes, on a character boundary.
    package static func bounded(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: limit)
        while !text.indices.contains(end), end > text.startIndex { end = text.utf8.index(before: end) }
        return String(text[..<end])
    }
}
