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

    /// Renders the escapes in `line`.
    static func render(_ line: String) -> String {
        guard line.contains("\\") else { return line }
        let characters = Array(line)
        var out = ""
        var index = 0
        /// The name after `\(`, `\[`, `\*`, `\n`, `\f`, `\s`… (`x`, `(xx` or `[name]`).
        func name() -> String {
            guard index < characters.count else { return "" }
            let first = characters[index]
            index += 1
            if first == "(" {
                let end = min(index + 2, characters.count)
                defer { index = end }
                return String(characters[index..<end])
            }
            if first == "[" {
                var end = index
                while end < characters.count, characters[end] != "]" { end += 1 }
                defer { index = min(end + 1, characters.count) }
                return String(characters[index..<end])
            }
            return String(first)
        }
        /// Skips a delimited argument (`\h'1n'`, `\w'text'`).
        func skipDelimited() {
            guard index < characters.count else { return }
            let delimiter = characters[index]
            index += 1
            while index < characters.count, characters[index] != delimiter { index += 1 }
            index = min(index + 1, characters.count)
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            guard character == "\\", index < characters.count else {
                out.append(character)
                continue
            }
            let escape = characters[index]
            index += 1
            switch escape {
            case "\"", "#": return out  // a comment to the end of the line
            case "-": out.append("-")
            case "e", "\\": out.append("\\")
            case "&", "^", "|", ")", "%", "c", "d", "u", "r", "z", "{", "}", "a", "p", "k", "t", ":", ",", "/": break
            case " ", "~", "0": out.append(" ")
            case "'": out.append("´")
            case "`": out.append("`")
            case ".": out.append(".")
            case "(", "[":
                index -= 1
                let glyph = name()
                if glyph.hasPrefix("u"), glyph.count >= 5, let scalar = UInt32(glyph.dropFirst().prefix { $0 != "_" }, radix: 16).flatMap(Unicode.Scalar.init) {
                    out.unicodeScalars.append(scalar)
                } else if glyph.hasPrefix("char"), let code = UInt32(glyph.dropFirst(4)).flatMap(Unicode.Scalar.init) {
                    out.unicodeScalars.append(code)
                } else {
                    out += glyphs[glyph] ?? ""
                }
            case "*":
                let string = name()
                out += ["lq": "“", "rq": "”", "R": "®", "Tm": "™", "aq": "'", "Aq": "'", "q": "\"", "L\"": "“", "R\"": "”"][string] ?? ""
            case "f", "F", "n", "g", "m", "M", "V", "Y", "$":
                if escape == "n", index < characters.count, characters[index] == "+" || characters[index] == "-" { index += 1 }
                _ = name()
            case "s":
                if index < characters.count, characters[index] == "+" || characters[index] == "-" { index += 1 }
                if index < characters.count, characters[index] == "(" || characters[index] == "[" || characters[index] == "'" {
                    if characters[index] == "'" { skipDelimited() } else { _ = name() }
                } else {
                    while index < characters.count, characters[index].isNumber { index += 1 }
                }
            case "h", "v", "w", "o", "b", "l", "L", "D", "N", "x", "X", "A", "B", "C", "R", "S", "Z":
                skipDelimited()
            default: out.append(escape)
            }
        }
        return out
    }
}
