package import DocumentModel

/// Turns a preview into output of one format. All escaping of file content happens in
/// renderers: a document type never writes markup or escape codes itself.
package protocol PreviewRenderer: Sendable {
    /// The preview as a string in this renderer's format.
    func render(_ preview: Preview) -> String
}

/// The output formats a preview can be rendered in.
package enum PreviewFormat: String, Sendable, CaseIterable {
    case text, ansi, html, json

    /// The renderer for this format; `width` (terminal columns) applies to text and ANSI,
    /// and colour to ANSI only.
    package func renderer(width: Int?, colour: Bool) -> any PreviewRenderer {
        switch self {
        case .text: TextRenderer(width: width, style: .plain)
        case .ansi: TextRenderer(width: width, style: colour ? .ansi : .plain)
        case .html: HTMLRenderer()
        case .json: JSONRenderer()
        }
    }
}
