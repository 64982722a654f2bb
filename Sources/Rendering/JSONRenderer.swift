package import DocumentModel
import Foundation

/// Renders a preview as JSON: `{"title": …, "elements": [{"type": "heading", …}, …]}`.
package struct JSONRenderer: PreviewRenderer {
    package init() {}

    package func render(_ preview: Preview) -> String {
        Self.encode(PreviewJSON(preview))
    }

    /// `value` as compact JSON with sorted keys, on one line.
    package static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A preview in its JSON shape, to embed in a larger object.
package struct PreviewJSON: Encodable, Sendable {
    let preview: Preview
    package init(_ preview: Preview) { self.preview = preview }

    enum Keys: String, CodingKey { case title, elements }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(preview.title, forKey: .title)
        try container.encode(preview.elements.map(ElementJSON.init), forKey: .elements)
    }
}

struct ElementJSON: Encodable {
    let element: PreviewElement

    enum Keys: String, CodingKey {
        case type, text, level, language, header, rows, fields, ordered, items, source, alt, width, height, title,
             elements, severity
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch element {
        case .title(let t):
            try c.encode("title", forKey: .type)
            try c.encode(t, forKey: .text)
        case .heading(let level, let t):
            try c.encode("heading", forKey: .type)
            try c.encode(level, forKey: .level)
            try c.encode(t, forKey: .text)
        case .text(let t):
            try c.encode("text", forKey: .type)
            try c.encode(t, forKey: .text)
        case .code(let language, let code):
            try c.encode("code", forKey: .type)
            try c.encodeIfPresent(language, forKey: .language)
            try c.encode(code, forKey: .text)
        case .table(let header, let rows):
            try c.encode("table", forKey: .type)
            try c.encode(header, forKey: .header)
            try c.encode(rows, forKey: .rows)
        case .metadata(let fields):
            try c.encode("metadata", forKey: .type)
            try c.encode(fields, forKey: .fields)
        case .list(let ordered, let items):
            try c.encode("list", forKey: .type)
            try c.encode(ordered, forKey: .ordered)
            try c.encode(items.map { $0.map(ElementJSON.init) }, forKey: .items)
        case .image(let image):
            try c.encode("image", forKey: .type)
            try c.encode(image.source, forKey: .source)
            try c.encodeIfPresent(image.alternativeText, forKey: .alt)
            try c.encodeIfPresent(image.width, forKey: .width)
            try c.encodeIfPresent(image.height, forKey: .height)
        case .section(let title, let content):
            try c.encode("section", forKey: .type)
            try c.encode(title, forKey: .title)
            try c.encode(content.map(ElementJSON.init), forKey: .elements)
        case .note(let severity, let t):
            try c.encode("note", forKey: .type)
            try c.encode(severity?.rawValue ?? "info", forKey: .severity)
            try c.encode(t, forKey: .text)
        }
    }
}
