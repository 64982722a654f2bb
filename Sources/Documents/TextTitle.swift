import Foundation

/// A plain text's title, where its author set one out as such — the way a reader of the file
/// sees it, and the way `file`, Recoll and Tracker do not (they title a text by its name):
/// - a first line underlined (`Git v2.37 Release Notes` over `=====`, reStructuredText's and
///   Markdown's setext headings, also with a line over it);
/// - first lines centred, as licences and some READMEs begin (`GNU LESSER GENERAL PUBLIC
///   LICENSE` over `Version 3, 29 June 2007`: the two joined by " — ").
///
/// Nothing else is taken for a title: a text's first line is as often a sentence, a copyright
/// or a date as its name. Only the first lines are looked at (after at most ten blank ones).
/// reStructuredText's roles are read as their text (`:mod:`math` --- Mathematical functions`
/// → `math — Mathematical functions`).
enum TextTitle {
    /// Bytes of the text looked at, at most.
    static let window = 4_096
    /// Columns a line must be indented by to count as centred.
    static let centred = 10

    static func of(_ text: String) -> String? {
        let head = text.utf8.prefix(window)
        let lines = Array(String(decoding: head, as: UTF8.self).split(maxSplits: 16, omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .prefix(16).map { $0.replacingTabs() })
        guard let first = lines.firstIndex(where: { !$0.isBlank }), first <= 10 else { return nil }
        let line = lines[first]
        let next = first + 1 < lines.count ? lines[first + 1] : ""
        // An overline, the title, an underline.
        if isRule(line), first + 2 < lines.count, !next.isBlank, isRule(lines[first + 2]) { return cleaned(next) }
        // A title underlined: a rule at least half as long as it.
        if isRule(next), String(next).trimmingSpace.count * 2 >= String(line).trimmingSpace.count { return cleaned(line) }
        // Centred lines.
        guard indentation(line) >= centred, let title = cleaned(line), title.count <= 72 else { return nil }
        if indentation(next) >= centred, let second = cleaned(next), second.count <= 72, title.count + second.count <= 100 {
            return title + " — " + second
        }
        return title
    }

    /// A line of one character (`=`, `-`, `~`, `*`, `#`, `^`, `+`, `_`), three or more.
    private static func isRule(_ line: Substring) -> Bool {
        let body = String(line).trimmingSpace
        guard body.count >= 3, let mark = body.first, "=-~*#^+_".contains(mark) else { return false }
        return body.allSatisfy { $0 == mark }
    }

    private static func indentation(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }

    /// The line as a title, or nil when it cannot be one: too short or too long, too few
    /// letters, an editor's mode line, code, columns of a table.
    private static func cleaned(_ line: Substring) -> String? {
        var title = String(line).trimmingSpace
        guard !title.contains("-*-"), !title.contains("    "), title.count <= 100 else { return nil }
        guard !title.contains(where: { "{};<>".contains($0) }) else { return nil }
        // reStructuredText roles and literals: their text.
        title = title.replacingOccurrences(of: #":[A-Za-z:+-]+:`([^`]*)`"#, with: "$1", options: .regularExpression)
        title = title.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: " --- ", with: " — ")
        guard title.count >= 3, title.filter(\.isLetter).count >= 2 else { return nil }
        return title
    }
}

private extension Substring {
    var isBlank: Bool { allSatisfy(\.isWhitespace) }
    /// Tabs as spaces to the next multiple of eight (the first 8 tabs at most matter here).
    func replacingTabs() -> Substring {
        guard contains("\t") else { return self }
        var out = ""
        for character in self {
            if character == "\t" { out += String(repeating: " ", count: 8 - out.count % 8) } else { out.append(character) }
        }
        return Substring(out)
    }
}

/// A LaTeX source's title and sectioning, as its commands state them: `\title{…}`, and
/// `\part`, `\chapter`, `\section`, `\subsection` (starred or with a short form in brackets),
/// their arguments read to the matching brace with simple markup taken off (`\textbf{x}` → x,
/// `~` → a space). A `.tex` file is otherwise found by its words and its name only.
enum LaTeXOutline {
    static let commands = ["title", "part", "chapter", "section", "subsection"]
    /// The most headings kept, each cut at `TextTitle`'s 100 characters.
    static let headingLimit = 500

    static func of(_ text: String) -> (title: String?, headings: [String]) {
        var title: String?
        var headings: [String] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count, headings.count < headingLimit {
            guard scalars[index] == "\\" else { index += 1; continue }
            var end = index + 1
            while end < scalars.count, end - index <= 12, ("a"..."z").contains(scalars[end]) { end += 1 }
            let name = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
            index = end
            guard commands.contains(name) else { continue }
            if index < scalars.count, scalars[index] == "*" { index += 1 }
            // A short form in brackets is skipped (the full title is in braces).
            if index < scalars.count, scalars[index] == "[" {
                var depth = 0
                while index < scalars.count {
                    if scalars[index] == "[" { depth += 1 } else if scalars[index] == "]" { depth -= 1; if depth == 0 { index += 1; break } }
                    index += 1
                }
            }
            guard index < scalars.count, scalars[index] == "{", let (argument, next) = braced(scalars, from: index) else { continue }
            index = next
            guard let cleaned = cleaned(argument) else { continue }
            if name == "title" { if title == nil { title = cleaned } } else { headings.append(cleaned) }
        }
        return (title, headings)
    }

    /// The text inside the braces opening at `start`, and the index after the closing one (at
    /// most 1,000 characters in).
    private static func braced(_ scalars: [Unicode.Scalar], from start: Int) -> (String, Int)? {
        var depth = 0
        var index = start
        var out = String.UnicodeScalarView()
        while index < scalars.count, index - start <= 1_000 {
            let scalar = scalars[index]
            if scalar == "{" { depth += 1; if depth > 1 { out.append(scalar) } } else if scalar == "}" {
                depth -= 1
                if depth == 0 { return (String(out), index + 1) }
                out.append(scalar)
            } else { out.append(scalar) }
            index += 1
        }
        return nil
    }

    /// An argument as text: commands dropped (their braced arguments kept), `~` and `\\` as
    /// spaces; nil when nothing with letters is left.
    private static func cleaned(_ argument: String) -> String? {
        var text = argument.replacingOccurrences(of: "\\\\", with: " ").replacingOccurrences(of: "~", with: " ")
        text = text.replacingOccurrences(of: #"\\(LaTeX|TeX)\b"#, with: "$1", options: .regularExpression)
        text = text.replacingOccurrences(of: #"\\[A-Za-z@]+\*?(\[[^\]]*\])?"#, with: "", options: .regularExpression)
        text = text.replacingOccurrences(of: #"[{}\\%$&#^_@]"#, with: "", options: .regularExpression)
        let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard collapsed.filter(\.isLetter).count >= 2 else { return nil }
        return String(collapsed.prefix(100))
    }
}
