package import DocumentModel

/// Renders a preview as one standalone HTML page.
///
/// Every string from a file — titles, text, cells, keys, image sources, language names — is
/// escaped here and only here. The page allows no scripts at all (a Content-Security-Policy
/// of `default-src 'none'`), and image sources other than relative paths, `file:`, `http:`
/// and `https:` URLs are shown as text, never loaded.
package struct HTMLRenderer: PreviewRenderer {
    /// Whether images the document refers to are loaded; when not, each is shown as its
    /// text and source (the web viewer's pane: nothing is fetched on a document's say-so).
    package var loadsImages: Bool

    package init(loadsImages: Bool = true) {
        self.loadsImages = loadsImages
    }

    package func render(_ preview: Preview) -> String {
        let body = body(preview)
        return """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src file: http: https: data:; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="Docent">
            <title>\(escape(preview.title ?? "Preview"))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <article>
            \(body)</article>
            </body>
            </html>

            """
    }

    /// The preview's elements alone, for a page that has its own head and styles.
    package func body(_ preview: Preview) -> String {
        var body = ""
        for element in preview.elements { render(element, into: &body) }
        return body
    }

    static let style = """
        body{font:16px/1.5 system-ui,sans-serif;max-width:52em;margin:2em auto;padding:0 1em;color:#222}\
        pre{background:#f6f6f6;padding:.8em;overflow:auto;font-size:14px}\
        table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\
        dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:bold}dd{margin:0}\
        .note{padding:.5em;border-left:4px solid #888;background:#f4f4f4}.warning{border-color:#c90}.error{border-color:#c00}
        """

    private func render(_ element: PreviewElement, into html: inout String) {
        switch element {
        case .title(let title):
            html += "<h1>\(escape(title))</h1>\n"
        case .heading(let level, let text):
            let h = min(6, level + 1)
            html += "<h\(h)>\(escape(text))</h\(h)>\n"
        case .text(let text):
            html += "<p>\(escape(text).replacingNewlinesWithBreaks)</p>\n"
        case .code(let language, let code):
            let attribute = language.map { " class=\"language-\(escape($0))\"" } ?? ""
            html += "<pre><code\(attribute)>\(escape(code))</code></pre>\n"
        case .table(let header, let rows):
            html += "<table>\n"
            if !header.isEmpty {
                html += "<thead><tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr></thead>\n"
            }
            html += "<tbody>\n"
            for row in rows { html += "<tr>" + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n" }
            html += "</tbody>\n</table>\n"
        case .metadata(let fields):
            html += "<dl>\n"
            for field in fields { html += "<dt>\(escape(field.key))</dt><dd>\(escape(field.value.description))</dd>\n" }
            html += "</dl>\n"
        case .list(let ordered, let items):
            let tag = ordered ? "ol" : "ul"
            html += "<\(tag)>\n"
            for item in items {
                html += "<li>"
                for element in item { render(element, into: &html) }
                html += "</li>\n"
            }
            html += "</\(tag)>\n"
        case .image(let image):
            let alt = escape(image.alternativeText ?? "")
            if loadsImages, Self.isLoadable(image.source) {
                var size = ""
                if let w = image.width, let h = image.height { size = " width=\"\(w)\" height=\"\(h)\"" }
                html += "<p><img src=\"\(escape(image.source))\" alt=\"\(alt)\"\(size)></p>\n"
            } else {
                html += "<p>[image: \(alt)] <code>\(escape(image.source))</code></p>\n"
            }
        case .section(let title, let content):
            html += "<section>\n<h2>\(escape(title))</h2>\n"
            for element in content { render(element, into: &html) }
            html += "</section>\n"
        case .note(let severity, let text):
            let kind = severity?.rawValue ?? "info"
            html += "<p class=\"note \(kind)\">\(escape(text))</p>\n"
        }
    }

    /// Whether an image source is a kind of reference a page may load.
    static func isLoadable(_ source: String) -> Bool {
        let lower = source.lowercased()
        guard let colon = lower.firstIndex(of: ":") else { return true }  // a relative path
        let scheme = lower[..<colon]
        if scheme.contains("/") { return true }  // "a/b:c" is a path
        return ["file", "http", "https"].contains(String(scheme))
    }
}

/// `text` with the five characters that mean something in HTML replaced by references,
/// safe in element content and in quoted attribute values alike.
package func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        case "\u{0}": out += "\u{FFFD}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

extension String {
    fileprivate var replacingNewlinesWithBreaks: String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "<br>\n")
    }
}
