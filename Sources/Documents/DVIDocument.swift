public import ContentTypes
public import DocumentModel
import Foundation

/// TeX's device-independent output (`.dvi`, also compressed: `refcard.dvi.gz`): its text, read
/// from the typesetting commands as `dvi2tty` reads it — the characters set in text fonts,
/// a space where TeX moved right by more than a fifth of the font's size, a new line where it
/// moved down — with its pages and the comment TeX wrote in the preamble ("TeX output
/// 2023.05.13:1635").
///
/// In-process: one linear pass over the bytes, every read bounds-checked, the DVI opcodes of
/// TeX: The Program §583–§590. Characters of OT1 and T1 text fonts (Computer Modern, EC,
/// Latin Modern) map to Unicode, their ligatures (ﬁ, ﬂ, …) to letters; math and symbol
/// fonts (`cmmi`, `cmsy`, `cmex`, `msam`, `msbm`) are left out, as their positions are no
/// letters. Accents placed over letters are not combined: "e´".
public struct DVIDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("org.freedesktop.mime.application.x-dvi")].compactMap { $0 } }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// What the reader made of the bytes.
    package let content: DVIText

    public init(configuration: ReadConfiguration) throws {
        guard let content = DVIText(try configuration.contents()) else { throw DocumentReadError("no DVI preamble: not TeX output") }
        self.content = content
    }

    public var metadata: DocumentMetadata { content.metadata }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(content.text) }

    /// DVI's viewing group: its fields and the head of its text.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: DVIDocument.self) { configuration in
            let document = configuration.document
            Metadata(document.metadata.fields)
            Note.problems(document.metadata.problems)
            if document.content.text.isEmpty { Note("No text in text fonts.") } else { PlainTextDocument.textHead(document.content.text) }
        }
    }
}

/// The text of a DVI file, its page count and its preamble's comment.
package struct DVIText: Sendable, Hashable {
    package var text = ""
    package var pages = 0
    package var comment: String?
    /// Where the commands stopped making sense (an unknown opcode, the end of the bytes).
    package var problem: String?

    /// Opcodes past which the file is not read (pre, post, post_post, and undefined ones).
    private enum Op {
        static let setChar1 = 128, setRule = 132, put1 = 133, putRule = 137, nop = 138, bop = 139, eop = 140, push = 141, pop = 142
        static let right1 = 143, down1 = 157
        static let fntNum0 = 171, fnt1 = 235, xxx1 = 239, fntDef1 = 243, pre = 247, post = 248
    }

    /// The most characters kept (a bound on a file of endless pages).
    static let textLimit = 8 << 20

    init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 15, bytes[0] == UInt8(Op.pre), bytes[1] == 2 || bytes[1] == 3 else { return nil }
        var reader = Reader(bytes: bytes, at: 14)
        let commentLength = Int(bytes[14])
        reader.at = 15
        if let comment = reader.take(commentLength) { self.comment = String(decoding: comment, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
        run(&reader)
    }

    /// Reads commands from the preamble's end to the postamble, appending text.
    private mutating func run(_ reader: inout Reader) {
        var fonts: [Int: Font] = [:]
        var font: Font?
        var (w, x, y, z) = (0, 0, 0, 0)
        var stack: [(Int, Int, Int, Int)] = []
        var line = ""
        var pendingSpace = false
        var lines: [String] = []
        var size = 0
        func newLine() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { lines.append(trimmed); size += trimmed.utf8.count + 1 }
            line = ""
            pendingSpace = false
        }
        var accent: Character?
        var sawPostamble = false
        func emit(_ code: Int) {
            guard let font else { return }
            if let mark = font.accent(code) {
                // A cedilla or an ogonek comes after its letter; other accents before theirs.
                if mark == "\u{0327}" || mark == "\u{0328}", let last = line.popLast() { line += String(last) + String(mark) } else { accent = mark }
                return
            }
            guard var text = font.character(code) else { return }
            if pendingSpace, !line.isEmpty { line += " " }
            pendingSpace = false
            if let mark = accent {
                // \'{\i}: the dotless i takes the accent as an i.
                text = (text == "ı" ? "i" : text) + String(mark)
                accent = nil
            }
            line += text
            if line.utf8.count > 65_536 { newLine() }  // a line that never ends (no move down) is cut
        }
        func moveRight(_ amount: Int) {
            // Interword glue is wider than a fifth of the font's size; kerns are narrower.
            if let font, amount > font.size / 5 { pendingSpace = true } else if font == nil, amount > 0 { pendingSpace = true }
        }
        func moveDown(_ amount: Int) {
            if abs(amount) > (font?.size ?? 1) / 2 { newLine() }
        }
        commands: while size < Self.textLimit {
            guard let op = reader.byte() else { break }
            switch op {
            case 0..<Op.setChar1: emit(op)
            case Op.setChar1..<Op.setRule:
                guard let code = reader.unsigned(op - Op.setChar1 + 1) else { break commands }
                emit(code)
            case Op.setRule, Op.putRule: guard reader.skip(8) else { break commands }
            case Op.put1..<Op.putRule:
                guard let code = reader.unsigned(op - Op.put1 + 1) else { break commands }
                emit(code)
            case Op.nop: continue
            case Op.bop:
                guard reader.skip(44) else { break commands }
                pages += 1
                (w, x, y, z) = (0, 0, 0, 0)
                stack.removeAll()
            case Op.eop:
                newLine()
                lines.append("")  // pages apart by a blank line
            case Op.push:
                if stack.count < 1_000 { stack.append((w, x, y, z)) }
            case Op.pop:
                if let top = stack.popLast() { (w, x, y, z) = top }
            case Op.right1..<Op.down1:  // right, w, x
                guard let amount = Self.move(op - Op.right1, &reader, &w, &x) else { break commands }
                moveRight(amount)
            case Op.down1..<Op.fntNum0:  // down, y, z: laid out as right, w, x are
                guard let amount = Self.move(op - Op.down1, &reader, &y, &z) else { break commands }
                moveDown(amount)
            case Op.fntNum0..<Op.fnt1: font = fonts[op - Op.fntNum0]
            case Op.fnt1..<Op.xxx1:
                guard let number = reader.unsigned(op - Op.fnt1 + 1) else { break commands }
                font = fonts[number]
            case Op.xxx1..<Op.fntDef1:
                guard let length = reader.unsigned(op - Op.xxx1 + 1), reader.skip(length) else { break commands }
            case Op.fntDef1..<Op.pre:
                guard let number = reader.unsigned(op - Op.fntDef1 + 1), reader.skip(4), let scaled = reader.unsigned(4), reader.skip(4),
                      let area = reader.byte(), let name = reader.byte(), let bytes = reader.take(area + name)
                else { break commands }
                fonts[number] = Font(name: String(decoding: bytes.suffix(name), as: UTF8.self), size: scaled)
            case Op.post:
                sawPostamble = true
                break commands
            default:
                problem = "an undefined command (\(op)) at byte \(reader.at - 1)"
                break commands
            }
        }
        // Out of bytes, at a command or inside one (a file cut short).
        if !sawPostamble, problem == nil, size < Self.textLimit { problem = "the file ends before its postamble" }
        newLine()
        while lines.last == "" { lines.removeLast() }
        text = lines.joined(separator: "\n").precomposedStringWithCanonicalMapping
    }

    /// The amount of a move command, `offset` past the first of its group of 14 (right1…4,
    /// w0, w1…4, x0, x1…4, and down, y, z alike): an amount of 1–4 bytes, a register's amount,
    /// or a new amount that the register keeps; nil when the bytes run out.
    private static func move(_ offset: Int, _ reader: inout Reader, _ first: inout Int, _ second: inout Int) -> Int? {
        switch offset {
        case 0..<4: return reader.signed(offset + 1)
        case 4: return first
        case 5..<9:
            guard let amount = reader.signed(offset - 4) else { return nil }
            first = amount
            return amount
        case 9: return second
        default:
            guard let amount = reader.signed(offset - 9) else { return nil }
            second = amount
            return amount
        }
    }

    package var metadata: DocumentMetadata {
        var metadata = DocumentMetadata()
        metadata.append("Pages", .integer(pages))
        metadata.append("Comment", comment.flatMap { $0.isEmpty ? nil : MetadataValue.text($0) })
        if let problem { metadata.problems.append(DocumentProblem(.warning, kind: .truncated, "Read as far as \(problem).")) }
        return metadata
    }

    /// A font as defined in the file: its name says its encoding.
    struct Font: Sendable {
        let name: String
        let size: Int
        /// Math and symbol fonts: their positions are not letters.
        let isSymbolic: Bool
        /// Cork (T1) encoded: EC and Latin Modern's `ec-` fonts, `t1-` names.
        let isT1: Bool
        /// Typewriter (`cmtt`): ASCII's `"`, `\`, `^`, `~` are themselves.
        let isTypewriter: Bool
        /// Its accent characters' combining marks.
        let marks: [Int: Character]

        init(name: String, size: Int) {
            self.name = name
            self.size = size
            isSymbolic = ["cmmi", "cmsy", "cmex", "msam", "msbm", "lmmi", "lmsy", "lmex", "eufm", "rsfs", "wasy", "line", "lcircle", "manfnt"]
                .contains { name.hasPrefix($0) }
            isT1 = ["ec", "tc", "t1", "cs-"].contains { name.hasPrefix($0) }
            isTypewriter = name.hasPrefix("cmtt")
            let table: [Int: UInt32] = isT1 ? Self.t1Marks : isTypewriter ? Self.typewriterMarks : Self.ot1Marks
            marks = isSymbolic ? [:] : table.compactMapValues { Unicode.Scalar($0).map(Character.init) }
        }

        static let t1Marks: [Int: UInt32] = [0: 0x300, 1: 0x301, 2: 0x302, 3: 0x303, 4: 0x308, 5: 0x30B, 6: 0x30A, 7: 0x30C, 8: 0x306, 9: 0x304,
                                             10: 0x307, 11: 0x327, 12: 0x328]
        static let typewriterMarks: [Int: UInt32] = [18: 0x300, 19: 0x301, 20: 0x30C, 21: 0x306, 22: 0x304, 23: 0x30A, 24: 0x327]
        static let ot1Marks: [Int: UInt32] = typewriterMarks.merging([94: 0x302, 95: 0x307, 125: 0x30B, 126: 0x303, 127: 0x308]) { a, _ in a }

        /// The combining mark of an accent character, placed with the letter beside it.
        func accent(_ code: Int) -> Character? { marks.isEmpty ? nil : marks[code] }

        func character(_ code: Int) -> String? {
            guard !isSymbolic, code >= 0, code < 256 else { return nil }
            if isT1 {
                switch code {
                case 27: return "ff"
                case 28: return "fi"
                case 29: return "fl"
                case 30: return "ffi"
                case 31: return "ffl"
                case 21: return "–"
                case 22: return "—"
                case 16: return "“"
                case 17: return "”"
                case 32...126: return String(UnicodeScalar(UInt8(code)))
                case 192...255: return String(UnicodeScalar(UInt8(code)))  // T1's upper half is Latin-1's letters
                default: return nil
                }
            }
            // OT1 (Computer Modern): ASCII but for these.
            switch code {
            case 11: return "ff"
            case 12: return "fi"
            case 13: return "fl"
            case 14: return "ffi"
            case 15: return "ffl"
            case 16: return "ı"
            case 17: return "ȷ"
            case 25: return "ß"
            case 26: return "æ"
            case 27: return "œ"
            case 28: return "ø"
            case 29: return "Æ"
            case 30: return "Œ"
            case 31: return "Ø"
            case 34 where !isTypewriter: return "”"
            case 92 where !isTypewriter: return "“"
            case 123 where !isTypewriter: return "–"
            case 124 where !isTypewriter: return "—"
            case 60 where !isTypewriter: return "¡"
            case 62 where !isTypewriter: return "¿"
            case 33...126: return String(UnicodeScalar(UInt8(code)))
            default: return nil
            }
        }
    }

    /// Big-endian reads that never run past the end.
    struct Reader {
        let bytes: [UInt8]
        var at: Int

        mutating func byte() -> Int? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return Int(bytes[at])
        }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - at else { return nil }
            defer { at += count }
            return bytes[at..<(at + count)]
        }

        mutating func skip(_ count: Int) -> Bool { take(count) != nil }

        mutating func unsigned(_ count: Int) -> Int? {
            guard let part = take(count) else { return nil }
            return part.reduce(0) { $0 << 8 | Int($1) }
        }

        /// A signed value of 1 to 4 bytes (two's complement).
        mutating func signed(_ count: Int) -> Int? {
            guard let value = unsigned(count) else { return nil }
            let bits = count * 8
            return value >= 1 << (bits - 1) ? value - (1 << bits) : value
        }
    }
}
