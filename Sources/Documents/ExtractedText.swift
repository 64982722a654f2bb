import Foundation

/// Repairs of text as PDF producers (TeX above all) leave it: an accent drawn as a glyph of its
/// own before its letter ("B¨ottcher", "caf´e") joined to the letter ("Böttcher", "café"), and
/// a letter drawn in a circle ("c⃝") as the one character it is ("©"). Then in NFC, the form
/// people type, so the words are found as typed.
enum ExtractedText {
    /// Spacing accents and the combining marks they stand for.
    static let accents: [Unicode.Scalar: Unicode.Scalar] = [
        "\u{A8}": "\u{308}", "\u{B4}": "\u{301}", "\u{2C6}": "\u{302}", "\u{2DC}": "\u{303}", "\u{2C7}": "\u{30C}",
        "\u{B8}": "\u{327}", "\u{2D8}": "\u{306}", "\u{2DA}": "\u{30A}", "\u{2DD}": "\u{30B}", "\u{2D9}": "\u{307}",
    ]

    static func repaired(_ text: String) -> String {
        // Most pages need nothing: a quick look first, by value before any table lookup (the
        // accents lie between U+A8 and U+2DD: a PDF's ASCII never reaches the table).
        guard text.unicodeScalars.contains(where: {
            $0.value >= 0xA8 && ($0.value == 0x20DD || ($0.value <= 0x2DD && accents[$0] != nil))
        }) else { return text }
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            // An accent between a letter (or a word's start) and a letter: it belongs to the letter after it.
            if let mark = accents[scalar], i + 1 < scalars.count, scalars[i + 1].properties.isAlphabetic,
               i == 0 || scalars[i - 1].properties.isAlphabetic || scalars[i - 1].properties.isWhitespace {
                out.append(scalars[i + 1])
                out.append(mark)
                i += 2
                continue
            }
            if scalar == "\u{20DD}", let last = out.last {
                let circled: [Unicode.Scalar: Unicode.Scalar] = ["c": "©", "C": "©", "r": "®", "R": "®", "P": "℗"]
                if let symbol = circled[last] {
                    out.removeLast()
                    out.append(symbol)
                    i += 1
                    continue
                }
            }
            out.append(scalar)
            i += 1
        }
        return String(out).precomposedStringWithCanonicalMapping
    }
}
