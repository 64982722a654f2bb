import ContentTypes
import DocumentModel
import Documents
import Engine
import Foundation
import SystemPackage
import TestSupport

/// Opens a file the way `docent preview` does: classify, choose, open read-only.
func open(_ path: String, readLimit: Int = FileWrapper.defaultReadLimit,
          documents: DocumentRegistry = BuiltInDocuments.registry,
          types: UTTypeRegistry = .shared) async throws -> OpenedDocument {
    let loader = try DocumentLoader(documents: documents, types: types, readLimit: readLimit)
    let prepared = try loader.prepare(FilePath(path))
    return try await prepared.open(in: documents)
}

extension OpenedDocument {
    /// The notes the preview shows, with their severities.
    var notes: [(severity: DocumentProblem.Severity?, text: String)] {
        func collect(_ elements: [PreviewElement]) -> [(DocumentProblem.Severity?, String)] {
            elements.flatMap { element -> [(DocumentProblem.Severity?, String)] in
                switch element {
                case .note(let severity, let text): [(severity, text)]
                case .section(_, let content): collect(content)
                default: []
                }
            }
        }
        return collect(preview().elements)
    }

    /// A metadata field's value as text.
    func field(_ key: String) -> String? { metadata[key]?.description }

    /// The plain-text rendition.
    var text: String {
        get async throws { try await plainText() ?? "" }
    }
}

/// Width and height as `file -b` reports them ("91 x 69", "91x69"), an oracle independent of Docent.
func dimensionsFromFile(_ path: String) throws -> (Int, Int)? {
    let output = String(decoding: try runTool("/usr/bin/file", ["-b", path]).output, as: UTF8.self)
    // JPEG descriptions also give the pixel density ("density 1x1"): skip it.
    guard let match = output.matches(of: /(\d+) ?x ?(\d+)/).first(where: { !output[..<$0.range.lowerBound].hasSuffix("density ") })
    else { return nil }
    return (Int(match.1)!, Int(match.2)!)
}
