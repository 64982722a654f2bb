import CCmarkGFM
import DocumentModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Markdown document parsed by cmark-gfm with GitHub's extensions (tables, strikethrough,
/// autolinks, task lists), turned into preview elements.
///
/// The walk over blocks is bounded in depth (deeper nesting is flattened to its text through
/// cmark's own iterator, which is not recursive) and in the number of elements, so a hostile
/// file of ten thousand nested quotes cannot exhaust the stack.
final class CommonMark {
    private let parser: OpaquePointer
    let root: OpaquePointer

    static let extensions = ["table", "strikethrough", "autolink", "tasklist"]
    static let maximumDepth = 12
    static let maximumElements = 400

    init(_ text: String) {
        cmark_gfm_core_extensions_ensure_registered()
        let parser = cmark_parser_new(CMARK_OPT_DEFAULT)!
        for name in Self.extensions {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
        }
        self.parser = parser
        root = cmark_parser_finish(parser)
    }

    deinit {
        cmark_node_free(root)
        cmark_parser_free(parser)
    }

    /// The document as HTML. Raw HTML in the source is left out (cmark's safe default).
    func html() -> String { take(cmark_render_html(root, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(parser))) }

    /// The document as plain text without markup, followed by what the rendering hides but
    /// a reader of the source sees (and a search should find): link and image addresses,
    /// code fence info strings and raw HTML.
    func plainText() -> String {
        var text = take(cmark_render_plaintext(root, CMARK_OPT_DEFAULT, 0))
        let hidden = hiddenText()
        if !hidden.isEmpty { text += (text.hasSuffix("\n") ? "\n" : "\n\n") + hidden.joined(separator: "\n") + "\n" }
        return text
    }

    /// Addresses, info strings and raw HTML, each once, in document order.
    private func hiddenText() -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        func add(_ text: String) {
            let trimmed = text.trimmingWhitespaceAndNewlines
            if !trimmed.isEmpty, seen.insert(trimmed).inserted { out.append(trimmed) }
        }
        walk(root) { node in
            switch cmark_node_get_type(node) {
            case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                add(string(cmark_node_get_url(node)))
                add(string(cmark_node_get_title(node)))
            case CMARK_NODE_CODE_BLOCK:
                add(string(cmark_node_get_fence_info(node)))
            case CMARK_NODE_HTML_BLOCK, CMARK_NODE_HTML_INLINE:
                add(string(cmark_node_get_literal(node)))
            default:
                break
            }
        }
        return out
    }

    private func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    // MARK: - Preview elements

    /// The document's blocks as preview elements, and whether the element limit cut it short.
    func elements() -> (elements: [PreviewElement], isCut: Bool) {
        var budget = Self.maximumElements
        let elements = blocks(under: root, depth: 0, budget: &budget)
        return (elements, budget <= 0)
    }

    /// Every heading, in order: the outline.
    func headings() -> [(level: Int, text: String)] {
        var out: [(Int, String)] = []
        var node = cmark_node_first_child(root)
        while let current = node {
            if cmark_node_get_type(current) == CMARK_NODE_HEADING {
                out.append((Int(cmark_node_get_heading_level(current)), inlineText(current)))
            }
            node = cmark_node_next(current)
        }
        return out
    }

    private func blocks(under parent: OpaquePointer, depth: Int, budget: inout Int) -> [PreviewElement] {
        var out: [PreviewElement] = []
        var node = cmark_node_first_child(parent)
        while let current = node, budget > 0 {
            budget -= 1
            out.append(contentsOf: block(current, depth: depth, budget: &budget))
            node = cmark_node_next(current)
        }
        return out
    }

    private func block(_ node: OpaquePointer, depth: Int, budget: inout Int) -> [PreviewElement] {
        if depth >= Self.maximumDepth {
            let text = inlineText(node)
            return text.isEmpty ? [] : [.text(text)]
        }
        switch cmark_node_get_type(node) {
        case CMARK_NODE_HEADING:
            return [.heading(level: Int(cmark_node_get_heading_level(node)), inlineText(node))]
        case CMARK_NODE_PARAGRAPH:
            let images = images(in: node)
            let onlyImages = !images.isEmpty && cmark_node_first_child(node) == cmark_node_last_child(node)
            let text = onlyImages ? "" : inlineText(node)
            return (text.isEmpty ? [] : [.text(text)]) + images.map(PreviewElement.image)
        case CMARK_NODE_CODE_BLOCK:
            let info = string(cmark_node_get_fence_info(node))
            let language = info.split(separator: " ").first.map(String.init)
            var code = string(cmark_node_get_literal(node))
            if code.hasSuffix("\n") { code.removeLast() }
            return [.code(language: language, code)]
        case CMARK_NODE_HTML_BLOCK:
            var code = string(cmark_node_get_literal(node))
            if code.hasSuffix("\n") { code.removeLast() }
            return [.code(language: "html", code)]
        case CMARK_NODE_LIST:
            let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
            var items: [[PreviewElement]] = []
            var item = cmark_node_first_child(node)
            while let current = item, budget > 0 {
                budget -= 1
                items.append(blocks(under: current, depth: depth + 1, budget: &budget))
                item = cmark_node_next(current)
            }
            return [.list(ordered: ordered, items: items)]
        case CMARK_NODE_BLOCK_QUOTE:
            return blocks(under: node, depth: depth + 1, budget: &budget)
        case CMARK_NODE_THEMATIC_BREAK:
            return []
        default:
            if string(cmark_node_get_type_string(node)) == "table" { return [table(node)] }
            let text = inlineText(node)
            return text.isEmpty ? [] : [.text(text)]
        }
    }

    private func table(_ node: OpaquePointer) -> PreviewElement {
        var header: [String] = []
        var rows: [[String]] = []
        var row = cmark_node_first_child(node)
        while let currentRow = row {
            var cells: [String] = []
            var cell = cmark_node_first_child(currentRow)
            while let currentCell = cell {
                cells.append(inlineText(currentCell))
                cell = cmark_node_next(currentCell)
            }
            if cmark_gfm_extensions_get_table_row_is_header(currentRow) != 0 { header = cells } else { rows.append(cells) }
            row = cmark_node_next(currentRow)
        }
        return .table(header: header, rows: rows)
    }

    /// The text under `node`, without markup: soft breaks become spaces.
    func inlineText(_ node: OpaquePointer) -> String {
        var out = ""
        walk(node) { child in
            switch cmark_node_get_type(child) {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE, CMARK_NODE_HTML_INLINE, CMARK_NODE_CODE_BLOCK:
                out += string(cmark_node_get_literal(child))
            case CMARK_NODE_SOFTBREAK: out += " "
            case CMARK_NODE_LINEBREAK: out += "\n"
            case CMARK_NODE_PARAGRAPH, CMARK_NODE_HEADING, CMARK_NODE_ITEM:
                if !out.isEmpty && !out.hasSuffix(" ") && !out.hasSuffix("\n") { out += " " }
            default: break
            }
        }
        return out
    }

    private func images(in node: OpaquePointer) -> [ImageReference] {
        var out: [ImageReference] = []
        walk(node) { child in
            if cmark_node_get_type(child) == CMARK_NODE_IMAGE {
                out.append(ImageReference(source: string(cmark_node_get_url(child)), alternativeText: inlineText(child)))
            }
        }
        return out
    }

    /// Calls `visit` on entering each node under `node`, through cmark's iterator (no recursion).
    private func walk(_ node: OpaquePointer, _ visit: (OpaquePointer) -> Void) {
        guard let iterator = cmark_iter_new(node) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            if event == CMARK_EVENT_ENTER, let current = cmark_iter_get_node(iterator), current != node { visit(current) }
        }
    }

    private func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
}
