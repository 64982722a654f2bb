public import ContentTypes
public import DocumentModel
import Foundation

/// Rich Text (`.rtf`): the text, and the `\info` group's title, author, subject, keywords
/// and dates.
///
/// In-process: a linear Swift tokenizer (groups on an explicit stack, depth bounded;
/// `\binN` data skipped; pictures, fonts, styles and other non-text destinations skipped;
/// `\'hh` bytes decoded in the document's code page, `\uN` as Unicode).
public struct RTFDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("public.rtf") ?? .text] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The text, without the markup.
    public var text = ""
    /// The `\\info` group's fields (title, author, …).
    public var info: [String: String] = [:]
    /// What could not be read.
    public var problems: [DocumentProblem] = []

    /// Destinations whose content is not the document's text.
    static let skipped: Set<String> = [
        "fonttbl", "colortbl", "stylesheet", "listtable", "listoverridetable", "pict", "object", "objdata", "themedata",
        "colorschememapping", "datastore", "latentstyles", "generator", "xmlnstbl", "rsidtbl", "mmathPr", "fldinst",
        "filetbl", "revtbl", "pgdsctbl", "nonshppict", "bkmkstart", "bkmkend", "wgrffmtfilter", "xmlopen", "defchp",
        "defpap", "nesttableprops", "shpinst", "sp", "userprops", "docvar", "template", "fchars", "lchars",
    ]
    /// `\info` fields kept.
    static let infoFields: Set<String> = ["title", "subject", "author", "keywords", "comment", "company", "operator", "category", "doccomm"]
    /// The deepest group nesting followed.
    static let depthLimit = 1_000

    public init(configuration: ReadConfiguration) throws {
        let data = try configuration.contents()
        guard data.starts(with: Array("{\\rtf".utf8)) else { throw DocumentReadError("no {\\rtf header: not Rich Text") }
        var parser = Parser(bytes: [UInt8](data))
        parser.run()
        text = parser.output.collapsingBlankLines
        info = parser.info.mapValues(\.collapsingWhitespace).filter { !$0.value.isEmpty }
        if parser.depthExceeded {
            problems.append(DocumentProblem(.warning, kind: .malformedRTF, "Groups nested deeper than \(Self.depthLimit) levels were skipped."))
        }
        if parser.depth > 0 {
            problems.append(DocumentProblem(configuration.file.isTruncated ? .warning : .error, kind: .truncated,
                                            "The document ends with \(parser.depth) group\(parser.depth == 1 ? "" : "s") still open."))
        }
    }

    /// The tokenizer's state: what each group sets is undone when it closes.
    struct Parser {
        struct State { var skip = false; var unicodeSkip = 1; var field: String? }

        let bytes: [UInt8]
        var index = 0
        var stack: [State] = [State()]
        var depth: Int { stack.count - 1 }
        var depthExceeded = false
        var output = ""
        var info: [String: String] = [:]
        /// `\'hh` bytes not yet decoded (a multi-byte character arrives as several).
        var pending: [UInt8] = []
        var encoding = String.Encoding.windowsCP1252
        /// Fallback characters still to skip after a `\uN`.
        var toSkip = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var state: State {
            get { stack[stack.count - 1] }
            set { stack[stack.count - 1] = newValue }
        }

        mutating func emit(_ string: String) {
            flush()
            guard !state.skip else { return }
            if let field = state.field { info[field, default: ""] += string } else { output += string }
        }

        mutating func flush() {
            guard !pending.isEmpty else { return }
            let decoded = String(data: Data(pending), encoding: encoding) ?? String(decoding: pending, as: UTF8.self)
            pending = []
            guard !state.skip else { return }
            if let field = state.field { info[field, default: ""] += decoded } else { output += decoded }
        }

        mutating func run() {
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "{"):
                    flush()
                    if stack.count > RTFDocument.depthLimit {
                        depthExceeded = true
                        skipGroup()
                    } else {
                        stack.append(state)
                        if index < bytes.count, bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                            // An ignorable destination: skipped unless known below.
                            index += 2
                            state.skip = true
                        }
                    }
                case UInt8(ascii: "}"):
                    flush()
                    if stack.count > 1 { stack.removeLast() }
                case UInt8(ascii: "\\"): control()
                case 0x0D, 0x0A: continue
                default:
                    if toSkip > 0 { toSkip -= 1; continue }
                    if byte < 0x80 {
                        emit(String(UnicodeScalar(byte)))
                    } else {
                        pending.append(byte)
                    }
                }
            }
            flush()
        }

        /// Skips to the end of the current group (the `{` already read).
        mutating func skipGroup() {
            var level = 1
            while index < bytes.count, level > 0 {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 1
                case UInt8(ascii: "{"): level += 1
                case UInt8(ascii: "}"): level -= 1
                default: break
                }
                index += 1
            }
        }

        mutating func control() {
            guard index < bytes.count else { return }
            let first = bytes[index]
            guard (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else {
                index += 1
                switch first {
                case UInt8(ascii: "'"):
                    guard index + 2 <= bytes.count, let value = UInt8(String(decoding: bytes[index..<index + 2], as: UTF8.self), radix: 16) else { return }
                    index += 2
                    if toSkip > 0 { toSkip -= 1; return }
                    if !state.skip { pending.append(value) }
                case UInt8(ascii: "~"): emit("\u{00A0}")
                case UInt8(ascii: "_"): emit("\u{2011}")
                case UInt8(ascii: "-"): break
                case 0x0A, 0x0D: emit("\n")
                default: emit(String(UnicodeScalar(first)))  // \\ \{ \}
                }
                return
            }
            let start = index
            while index < bytes.count, (0x41...0x5A).contains(bytes[index]) || (0x61...0x7A).contains(bytes[index]) { index += 1 }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            var parameter: Int?
            let numberStart = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), index - numberStart < 10 { index += 1 }
            if index > numberStart { parameter = Int(String(decoding: bytes[numberStart..<index], as: UTF8.self)) }
            if index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
            apply(word, parameter)
        }

        mutating func apply(_ word: String, _ parameter: Int?) {
            switch word {
            case "par", "line", "sect", "page", "row", "lbr": emit("\n")
            case "tab", "cell": emit("\t")
            case "emdash": emit("—")
            case "endash": emit("–")
            case "bullet": emit("•")
            case "lquote": emit("‘")
            case "rquote": emit("’")
            case "ldblquote": emit("“")
            case "rdblquote": emit("”")
            case "emspace", "enspace", "qmspace": emit(" ")
            case "u":
                guard var value = parameter else { return }
                if !(-32_768...65_535).contains(value) { value = 0xFFFD }
                if value < 0 { value += 65_536 }
                // \uN is a signed 16-bit number; anything else is damage, shown as U+FFFD.
                // (Regression, found by Fuzz/FuzzRTF: `\u-99999999` trapped in UInt32(_:).)
                emit(String(UInt32(exactly: value).flatMap(UnicodeScalar.init) ?? "\u{FFFD}"))
                toSkip = state.unicodeSkip
            case "uc": state.unicodeSkip = max(0, min(parameter ?? 1, 10))
            case "ansicpg": encoding = Self.encoding(codePage: parameter ?? 1252)
            case "mac": encoding = .macOSRoman
            case "bin":
                flush()
                index = min(bytes.count, index + max(0, parameter ?? 0))
            case "info": state.field = nil
            case let name where RTFDocument.skipped.contains(name): state.skip = true
            case let name where RTFDocument.infoFields.contains(name):
                state.field = name
                state.skip = false
            case "fldrslt", "shptxt": state.skip = false
            default: break
            }
        }

        static func encoding(codePage: Int) -> String.Encoding {
            switch codePage {
            case 1250: .windowsCP1250
            case 1251: .windowsCP1251
            case 1253: .windowsCP1253
            case 1254: .windowsCP1254
            case 932: .shiftJIS
            case 10000: .macOSRoman
            case 437, 850: .ascii
            default: .windowsCP1252
            }
        }
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: info["title"], problems: problems)
        metadata.append("Author", info["author"].map { .text($0) })
        metadata.append("Subject", info["subject"].map { .text($0) })
        metadata.append("Keywords", info["keywords"].map { .text($0) })
        metadata.append("Company", info["company"].map { .text($0) })
        metadata.append("Comment", (info["doccomm"] ?? info["comment"]).map { .text($0) })
        metadata.append("Words", .integer(text.wordCount))
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: RTFDocument.self) { configuration in
            let document = configuration.document
            if let title = document.info["title"] { Title(title) }
            Metadata(document.metadata.fields)
            Note.problems(document.problems)
            let head = document.text.head()
            if !head.text.isEmpty { Text(head.text) }
            if head.isCut { Note("Showing the beginning of \(document.text.lineCount) lines.") }
        }
    }
}

extension String {
    /// Lines trimmed, runs of blank lines made one.
    var collapsingBlankLines: String {
        var lines: [Substring] = []
        for line in split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
            let clean = Substring(String(trimmed))
            if clean.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(clean)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
