package import DocumentModel

/// Renders a preview as plain text, or as text with ANSI styles for a terminal.
///
/// Paragraphs wrap to `width` when one is given (a terminal's), tables shrink their widest
/// columns to fit it, and every piece of file content is made terminal-safe first.
package struct TextRenderer: PreviewRenderer {
    /// Plain text, or ANSI styles (bold titles, coloured notes).
    package enum Style: Sendable { case plain, ansi }

    package var width: Int?
    package var style: Style

    package init(width: Int? = nil, style: Style = .plain) {
        self.width = width.map { max(20, $0) }
        self.style = style
    }

    package func render(_ preview: Preview) -> String {
        var blocks: [String] = []
        for element in preview.elements { blocks.append(contentsOf: render(element, indent: 0)) }
        return blocks.filter { !$0.isEmpty }.joined(separator: "\n\n") + "\n"
    }

    // MARK: - Elements

    private func render(_ element: PreviewElement, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        switch element {
        case .title(let title):
            let t = title.terminalSafe
            return [styled(pad + t, .title) + "\n" + pad + String(repeating: "=", count: min(displayWidth(t), lineWidth(indent)))]
        case .heading(let level, let text):
            let marker = String(repeating: "#", count: level)
            return [styled(pad + marker + " " + text.terminalSafe, .heading)]
        case .text(let text):
            return [wrap(text.terminalSafe, indent: indent)]
        case .code(_, let code):
            let lines = code.terminalSafe.split(separator: "\n", omittingEmptySubsequences: false)
            let body = lines.map { pad + "    " + $0 }.joined(separator: "\n")
            return [styled(body, .code)]
        case .table(let header, let rows):
            return [TableLayout(header: header, rows: rows, width: width.map { $0 - indent })
                .lines(headerStyle: { styled($0, .key) }).map { pad + $0 }.joined(separator: "\n")]
        case .metadata(let fields):
            let keyWidth = min(24, fields.map { displayWidth($0.key.terminalSafe) }.max() ?? 0)
            return [fields.map { field in
                let key = field.key.terminalSafe
                let padded = key + String(repeating: " ", count: max(0, keyWidth - displayWidth(key)))
                return pad + styled(padded + ":", .key) + " " + field.value.description.terminalSafe
            }.joined(separator: "\n")]
        case .list(let ordered, let items):
            return [items.enumerated().map { index, item in
                let marker = ordered ? "\(index + 1). " : "- "
                let body = item.flatMap { render($0, indent: indent + marker.count) }.joined(separator: "\n")
                let trimmed = body.dropFirst(min(body.prefix(while: { $0 == " " }).count, indent + marker.count))
                return pad + marker + trimmed
            }.joined(separator: "\n")]
        case .image(let image):
            var parts = ["image"]
            if let alt = image.alternativeText, !alt.isEmpty { parts.append(alt.terminalSafe) }
            if let w = image.width, let h = image.height { parts.append("\(w)×\(h)") }
            return [pad + "[" + parts.joined(separator: ": ") + "] " + image.source.terminalSafe]
        case .section(let title, let content):
            return [styled(pad + title.terminalSafe, .heading)] + content.flatMap { render($0, indent: indent + 2) }
        case .note(let severity, let text):
            let label = severity.map { $0 == .error ? "error" : "warning" } ?? "note"
            return [styled(wrap("\(label): " + text.terminalSafe, indent: indent), severity == .error ? .error : .warning)]
        }
    }

    // MARK: - Layout

    private func lineWidth(_ indent: Int) -> Int { (width ?? 80) - indent }

    private func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        guard let width else {
            return text.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }.joined(separator: "\n")
        }
        let limit = max(10, width - indent)
        var out: [String] = []
        for paragraphLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraphLine.split(separator: " ", omittingEmptySubsequences: true) {
                if line.isEmpty {
                    line = String(word)
                } else if displayWidth(line) + 1 + displayWidth(word) <= limit {
                    line += " " + word
                } else {
                    out.append(pad + line)
                    line = String(word)
                }
                while displayWidth(line) > limit {  // a word longer than the line
                    out.append(pad + String(line.prefix(limit)))
                    line = String(line.dropFirst(limit))
                }
            }
            out.append(pad + line)
        }
        return out.joined(separator: "\n")
    }

    // MARK: - Styles

    private enum Role { case title, heading, key, code, warning, error }

    private func styled(_ text: String, _ role: Role) -> String {
        guard style == .ansi else { return text }
        let code = switch role {
        case .title: "1;4"
        case .heading: "1;36"
        case .key: "1"
        case .code: "2"
        case .warning: "33"
        case .error: "1;31"
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "\u{1B}[\(code)m\($0)\u{1B}[0m" }.joined(separator: "\n")
    }
}

/// Columns of a monospaced display a string takes (wide East Asian characters take two).
func displayWidth<S: StringProtocol>(_ s: S) -> Int {
    var width = 0
    for scalar in s.unicodeScalars {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: continue  // combining, zero-width
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            width += 2
        default: width += 1
        }
    }
    return width
}
