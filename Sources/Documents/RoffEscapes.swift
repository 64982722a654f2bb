/// roff escape sequences rendered as text: fonts and sizes dropped, special characters
/// (`\(em`, `\[bu]`, `\[u00E9]`) as Unicode, `\-` as a hyphen, strings and registers
/// (which the page's own roff program would define) as nothing, comments cut.
enum Escapes {
    /// Named glyphs: groff's most common ones (groff_char(7)).
    static let glyphs: [String: String] = [
        "em": "—", "en": "–", "hy": "-", "bu": "•", "aq": "'", "dq": "\"", "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
        "co": "©", "rg": "®", "tm": "™", "de": "°", "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥", "!=": "≠",
        "->": "→", "<-": "←", "rA": "⇒", "lA": "⇐", "ua": "↑", "da": "↓", "sc": "§", "ps": "¶", "dg": "†", "ct": "¢",
        "Po": "£", "Eu": "€", "eu": "€", "Ye": "¥", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|", "br": "│",
        "ul": "_", "ru": "_", "at": "@", "sh": "#", "Do": "$", "pc": "·", "fm": "′", "sd": "″", "mc": "µ", "OK": "✓",
        "'e": "é", "`e": "è", "^e": "ê", "'a": "á", "`a": "à", ":a": "ä", ":o": "ö", ":u": "ü", "ss": "ß", ",c": "ç",
        "~n": "ñ", "'E": "É", ":A": "Ä", ":O": "Ö", ":U": "Ü", "'o": "ó", "'i": "í", "'u": "ú", "ga": "`", "aa": "´",
        "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›",
        "ic": "", "Ql": "'", "Qr": "'",
    ]

    /// Renders the escapes in `line`. Works on UTF-8 bytes (every escape is ASCII; other
    /// bytes pass through whole): Character by Character, this was a tenth of a cold index.
    static func render(_ line: String) -> String {
        guard line.utf8.contains(0x5C) else { return line }  // no backslash
        let bytes = Array(line.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        /// The length of the UTF-8 sequence starting at `i` (1 for ASCII or a stray byte).
        func sequenceLength(at i: Int) -> Int {
            let lead = bytes[i]
            let length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            var end = i + 1
            while end < min(i + length, bytes.count), bytes[end] & 0xC0 == 0x80 { end += 1 }
            return end - i
        }
        /// The name after `\(`, `\[`, `\*`, `\n`, `\f`, `\s`… (`x`, `(xx` or `[name]`).
        func name() -> String {
            guard index < bytes.count else { return "" }
            let first = bytes[index]
            if first == 0x28 {  // (xx: two characters
                index += 1
                var end = index
                for _ in 0..<2 where end < bytes.count { end += sequenceLength(at: end) }
                defer { index = end }
                return String(decoding: bytes[index..<end], as: UTF8.self)
            }
            if first == 0x5B {  // [name]
                index += 1
                var end = index
                while end < bytes.count, bytes[end] != 0x5D { end += 1 }
                defer { index = min(end + 1, bytes.count) }
                return String(decoding: bytes[index..<end], as: UTF8.self)
            }
            let length = sequenceLength(at: index)
            defer { index += length }
            return String(decoding: bytes[index..<index + length], as: UTF8.self)
        }
        /// Skips a delimited argument (`\h'1n'`, `\w'text'`).
        func skipDelimited() {
            guard index < bytes.count else { return }
            let length = sequenceLength(at: index)
            let delimiter = bytes[index..<index + length]
            index += length
            while index < bytes.count, !bytes[index...].starts(with: delimiter) { index += 1 }
            index = min(index + length, bytes.count)
        }
        func append(_ text: String) { out.append(contentsOf: text.utf8) }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == 0x5C, index < bytes.count else {
                out.append(byte)
                continue
            }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "#"): return String(decoding: out, as: UTF8.self)  // a comment to the end of the line
            case UInt8(ascii: "-"): out.append(UInt8(ascii: "-"))
            case UInt8(ascii: "e"), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "&"), UInt8(ascii: "^"), UInt8(ascii: "|"), UInt8(ascii: ")"), UInt8(ascii: "%"), UInt8(ascii: "c"),
                 UInt8(ascii: "d"), UInt8(ascii: "u"), UInt8(ascii: "r"), UInt8(ascii: "z"), UInt8(ascii: "{"), UInt8(ascii: "}"),
                 UInt8(ascii: "a"), UInt8(ascii: "p"), UInt8(ascii: "k"), UInt8(ascii: "t"), UInt8(ascii: ":"), UInt8(ascii: ","),
                 UInt8(ascii: "/"):
                break
            case UInt8(ascii: " "), UInt8(ascii: "~"), UInt8(ascii: "0"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "'"): append("´")
            case UInt8(ascii: "`"): out.append(UInt8(ascii: "`"))
            case UInt8(ascii: "."): out.append(UInt8(ascii: "."))
            case UInt8(ascii: "("), UInt8(ascii: "["):
                index -= 1
                let glyph = name()
                if glyph.hasPrefix("u"), glyph.utf8.count >= 5,
                   let scalar = UInt32(glyph.dropFirst().prefix { $0 != "_" }, radix: 16).flatMap(Unicode.Scalar.init) {
                    append(String(scalar))
                } else if glyph.hasPrefix("char"), let code = UInt32(glyph.dropFirst(4)).flatMap(Unicode.Scalar.init) {
                    append(String(code))
                } else {
                    append(glyphs[glyph] ?? "")
                }
            case UInt8(ascii: "*"):
                let string = name()
                append(["lq": "“", "rq": "”", "R": "®", "Tm": "™", "aq": "'", "Aq": "'", "q": "\"", "L\"": "“", "R\"": "”"][string] ?? "")
            case UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "n"), UInt8(ascii: "g"), UInt8(ascii: "m"), UInt8(ascii: "M"),
                 UInt8(ascii: "V"), UInt8(ascii: "Y"), UInt8(ascii: "$"):
                if escape == UInt8(ascii: "n"), index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                _ = name()
            case UInt8(ascii: "s"):
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "(") || bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "'") {
                    if bytes[index] == UInt8(ascii: "'") { skipDelimited() } else { _ = name() }
                } else {
                    while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
                }
            case UInt8(ascii: "h"), UInt8(ascii: "v"), UInt8(ascii: "w"), UInt8(ascii: "o"), UInt8(ascii: "b"), UInt8(ascii: "l"),
                 UInt8(ascii: "L"), UInt8(ascii: "D"), UInt8(ascii: "N"), UInt8(ascii: "x"), UInt8(ascii: "X"), UInt8(ascii: "A"),
                 UInt8(ascii: "B"), UInt8(ascii: "C"), UInt8(ascii: "R"), UInt8(ascii: "S"), UInt8(ascii: "Z"):
                skipDelimited()
            default:
                // Any other escaped character stands for itself (the whole of a multi-byte one).
                index -= 1
                let length = sequenceLength(at: index)
                out.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
