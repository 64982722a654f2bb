import Foundation

/// A man page's roff source rendered as plain text: the `man` macros (`.TH`, `.SH`, `.SS`,
/// `.TP`, `.IP`, `.B`, `.BR` …) and the common `mdoc` ones (`.Dt`, `.Sh`, `.Nm`, `.Nd`,
/// `.Fl`, `.Ar`, `.Op` …), roff escapes (`\fB`, `\-`, `\(em`, `\[u00E9]` …), fill and
/// no-fill. What roff programs a page defines for itself (`.de`, conditionals, registers)
/// is skipped, not run: this is a reader for finding and previewing, not a typesetter.
package struct ManPage: Sendable {
    /// From `.TH` / `.Dt`: the page's name and section (`ls`, `1`), date, source, manual.
    package var name: String?, section: String?, date: String?, source: String?, manual: String?
    /// From the NAME section: what the page is about (`list directory contents`).
    package var summary: String?
    /// From the NAME section: the names it documents, as `whatis` lists them (`ls`, `bzip2,
    /// bunzip2`); nil when the section has no dash.
    package var names: String?
    /// The sections in order: heading and rendered text (paragraphs separated by blank lines).
    package var sections: [(heading: String, text: String)] = []
    /// `.so` target, for a page that only includes another.
    package var includes: String?

    package var synopsis: String? { sections.first { $0.heading == "SYNOPSIS" }?.text }

    /// The whole page as text: headings on their own lines, sections indented as `man` shows them.
    package var text: String {
        sections.map { heading, text in
            heading + "\n" + text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
                .map { $0.isEmpty ? "" : "    " + Substring($0) }.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// Whether `source` looks like a man page: a `.TH`/`.Dt`/`.SH`/`.Sh` request in its first lines.
    package static func looksLikeManPage(_ source: String) -> Bool {
        let requests = [".TH ", ".Dt ", ".SH ", ".Sh ", ".so "].map { Array($0.utf8) }
        return source.utf8.split(separator: 0x0A, maxSplits: 200).prefix(200).contains { line in
            requests.contains { line.starts(with: $0) }
        }
    }

    package init(_ roff: String) {
        var renderer = Renderer()
        // While a macro is defined (`.de`, `.am`, `.ig`, …): the request that ends it, "." for
        // `..`, which roff reads with spaces after its dot too (`.  .`, as Asciidoctor writes
        // definitions inside a conditional block).
        var definitionEnd: String?
        var table: [Substring]?  // the lines of a tbl table (`.TS` … `.TE`) being read
        // Lines split as bytes: by Character, "\r\n" is one and never matched "\n".
        var continued = ""  // a line ending in a backslash goes on on the next (roff's escaped newline)
        for rawLine in roff.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            var line = Substring(rawLine)
            if line.utf8.last == 0x0D { line = Substring(line.utf8.dropLast()) }
            if line.hasSuffix("\\"), line.reversed().prefix(while: { $0 == "\\" }).count % 2 == 1 {
                continued += line.dropLast()
                continue
            }
            if !continued.isEmpty {
                line = Substring(continued + line)
                continued = ""
            }
            if let end = definitionEnd {
                if let first = line.first, first == "." || first == "'" {
                    let name = line.dropFirst().drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" }
                    if end == "." ? name.hasPrefix(".") : name == end { definitionEnd = nil }
                }
                continue
            }
            if table != nil {
                if line.hasPrefix(".TE") {
                    renderer.table(RoffTable(table ?? []).rendered)
                    table = nil
                } else {
                    table?.append(line)
                }
                continue
            }
            guard let first = line.first, first == "." || first == "'" else {
                renderer.textLine(line)
                continue
            }
            let request = line.dropFirst().drop { $0 == " " || $0 == "\t" }
            let name = String(request.prefix { $0 != " " && $0 != "\t" })
            let arguments = Self.arguments(request.dropFirst(name.count))
            switch name {
            case "", "\\\"": continue  // a lone dot, a comment
            // `.de NAME [END]`, `.ig [END]`: ended by `.END`, or by `..`.
            case "de", "de1", "dei", "dei1", "am", "am1", "ami", "ami1": definitionEnd = arguments.count > 1 ? arguments[1] : "."
            case "ig": definitionEnd = arguments.first ?? "."
            case "TS": table = []
            case "TH":
                (self.name, section) = (arguments.first, arguments.count > 1 ? arguments[1] : nil)
                date = arguments.count > 2 ? arguments[2].nilIfEmpty : nil
                self.source = arguments.count > 3 ? arguments[3].nilIfEmpty : nil
                manual = arguments.count > 4 ? arguments[4].nilIfEmpty : nil
            case "Dt":
                (self.name, section) = (arguments.first, arguments.count > 1 ? arguments[1] : nil)
                manual = arguments.count > 2 ? arguments[2] : nil
            case "Dd": date = Escapes.render(arguments.joined(separator: " ")).nilIfEmpty
            case "Os": self.source = Escapes.render(arguments.joined(separator: " ")).nilIfEmpty
            case "SH", "Sh": renderer.heading(arguments.joined(separator: " "), level: 1)
            case "SS", "Ss": renderer.heading(arguments.joined(separator: " "), level: 2)
            case "PP", "LP", "P", "Pp", "Lp", "sp", "HP", "Bl", "El", "Bd", "Ed": renderer.paragraph()
            case "TP", "TQ":  // the next line is the tag, on a line of its own
                renderer.paragraph()
                renderer.tagPending = true
            case "IP", "It":
                renderer.paragraph()
                let tag = name == "It" ? MDoc.render(arguments) : (arguments.first ?? "")
                if !tag.isEmpty, tag != "\\(bu" || name == "IP" { renderer.words(Escapes.render(tag)) }
            case "br", "Br": renderer.lineBreak()
            case "nf", "EX", "Vb": renderer.fill = false
            case "fi", "EE", "Ve": renderer.fill = true
            case "B", "I", "SM", "SB", "R":
                renderer.macroText(Escapes.render(arguments.joined(separator: " ")))
            case "BR", "BI", "IB", "IR", "RB", "RI":
                renderer.macroText(Escapes.render(arguments.joined()))
            case "UR", "MT": if let target = arguments.first { renderer.words("<\(target)>") }
            case "so": includes = arguments.first
            case "Nm", "Nd", "Fl", "Ar", "Op", "Oo", "Oc", "Xr", "Pa", "Cm", "Ev", "Em", "Sy", "Li", "Dq", "Qq", "Sq", "Ql",
                 "Va", "Fn", "Fa", "Ft", "Fd", "In", "Cd", "Ic", "Ns", "Ux", "Bx", "At", "Dv", "Er", "Lk", "Mt", "Ad", "An", "Aq", "Pq", "Bq", "Brq":
                if name == "Nm", self.name == nil { self.name = arguments.first }
                if name == "Nd", summary == nil { summary = Escapes.render(arguments.joined(separator: " ")) }
                let shown = name == "Nm" && (arguments.isEmpty || MDoc.callable.contains(arguments[0])) ? [self.name ?? ""] + arguments : arguments
                renderer.words(MDoc.render([name] + shown))
            default: continue  // layout and programming requests: nothing to show
            }
        }
        sections = renderer.finish()
        if summary == nil, let nameSection = sections.first(where: { $0.heading == "NAME" })?.text {
            // "ls \- list directory contents", rendered as "ls - list directory contents".
            if let dash = nameSection.range(of: " - ") ?? nameSection.range(of: " — ") {
                summary = String(nameSection[dash.upperBound...]).collapsingWhitespace.nilIfEmpty
                names = String(nameSection[..<dash.lowerBound]).collapsingWhitespace.nilIfEmpty
            }
        }
        if let name = self.name { self.name = Escapes.render(name) }
    }

    /// A request's arguments: words, or double-quoted strings (`""` inside is a quote);
    /// `\"` starts a comment.
    static func arguments(_ text: Substring) -> [String] {
        let bytes = Array(text.utf8)  // every character that matters is ASCII
        var result: [String] = []
        var current: [UInt8] = []
        var quoted = false, inWord = false
        var index = 0
        let (backslash, quote, space, tab): (UInt8, UInt8, UInt8, UInt8) = (0x5C, 0x22, 0x20, 0x09)
        func word() { result.append(String(decoding: current, as: UTF8.self)) }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            index += 1
            if byte == backslash, next == quote { break }
            if byte == backslash, let next {  // an escape: kept whole, rendered later
                current.append(byte)
                current.append(next)
                index += 1
                inWord = true
            } else if quoted {
                if byte == quote {
                    if next == quote { current.append(quote); index += 1; continue }
                    quoted = false
                    word()
                    (current, inWord) = ([], false)
                } else {
                    current.append(byte)
                }
            } else if byte == space || byte == tab {
                if inWord { word(); (current, inWord) = ([], false) }
            } else if byte == quote && !inWord {
                (quoted, inWord) = (true, true)
            } else {
                current.append(byte)
                inWord = true
            }
        }
        if inWord { word() }
        return result
    }

    /// Collects text into sections and paragraphs, filling lines or keeping them.
    struct Renderer {
        var sections: [(heading: String, text: String)] = []
        var heading: String?
        var paragraphs: [String] = []
        var current = ""
        var fill = true
        /// After `.TP`: the next text line is a tag, followed by a line break.
        var tagPending = false

        mutating func textLine(_ line: Substring) {
            if line.unicodeScalars.allSatisfy(String.isSpace) {
                self.paragraph()
                return
            }
            let text = Escapes.render(String(line))
            if fill || tagPending {
                words(text)
            } else {
                current += current.isEmpty ? text : "\n" + text
            }
        }

        mutating func words(_ text: String) {
            guard !text.isEmpty else { return }
            if current.isEmpty || current.hasSuffix("\n") { current += text } else { current += " " + text }
            if tagPending {
                lineBreak()
                tagPending = false
            }
        }

        /// A font macro's text (`.B`, `.BI` …): words of the paragraph when filling, a line of
        /// its own in no-fill (a SYNOPSIS's prototypes, each on its line as `man` shows them).
        mutating func macroText(_ text: String) {
            if fill || tagPending { words(text) } else if !text.isEmpty { current += current.isEmpty || current.hasSuffix("\n") ? text : "\n" + text }
        }

        mutating func lineBreak() { if !current.isEmpty { current += "\n" } }

        /// A table, laid out: a paragraph of its own, its lines kept.
        mutating func table(_ text: String) {
            paragraph()
            if !text.trimmingWhitespaceAndNewlines.isEmpty { paragraphs.append(text) }
        }

        mutating func paragraph() {
            let trimmed = current.trimmingWhitespaceAndNewlines
            if !trimmed.isEmpty { paragraphs.append(trimmed) }
            current = ""
        }

        mutating func heading(_ text: String, level: Int) {
            if level == 1 {
                endSection()
                heading = Escapes.render(text).uppercased()
            } else {
                paragraph()
                paragraphs.append(Escapes.render(text))
            }
        }

        mutating func endSection() {
            paragraph()
            if heading != nil || !paragraphs.isEmpty {
                sections.append((heading ?? "", paragraphs.joined(separator: "\n\n")))
            }
            (heading, paragraphs) = (nil, [])
        }

        mutating func finish() -> [(heading: String, text: String)] {
            endSection()
            return sections
        }
    }
}

/// mdoc's in-line macros: `Fl v` is `-v`, `Op Fl v` is `[-v]`, macro names are dropped.
enum MDoc {
    static let callable: Set<String> = [
        "Nm", "Nd", "Fl", "Ar", "Op", "Oo", "Oc", "Xr", "Pa", "Cm", "Ev", "Em", "Sy", "Li", "Dq", "Qq", "Sq", "Ql", "Va", "Fn",
        "Fa", "Ft", "Fd", "In", "Cd", "Ic", "Ns", "Ux", "Bx", "At", "Dv", "Er", "Lk", "Mt", "Ad", "An", "Aq", "Pq", "Bq", "Brq", "Pf", "It",
    ]

    static func render(_ tokens: [String]) -> String {
        var out: [String] = []
        var closers: [String] = []
        var dashes = 0  // `Fl Fl apple` is `--apple`
        for token in tokens {
            if callable.contains(token) {
                dashes = token == "Fl" ? dashes + 1 : 0
                switch token {
                case "Op", "Oo": out.append("["); closers.append("]")
                case "Dq": out.append("“"); closers.append("”")
                case "Pq": out.append("("); closers.append(")")
                case "Nd": out.append("—")
                default: break
                }
                continue
            }
            out.append(Escapes.render(String(repeating: "-", count: dashes) + token))
            dashes = 0
        }
        if dashes > 0 { out.append(String(repeating: "-", count: dashes)) }
        var text = out.joined(separator: " ")
        for closer in closers.reversed() { text += closer }
        return text.replacingOccurrences(of: "[ ", with: "[").replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: "“ ", with: "“")
    }
}
