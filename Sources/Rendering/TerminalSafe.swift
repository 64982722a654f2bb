extension String {
    /// The string with control characters that a terminal would act on (escape sequences,
    /// carriage returns, bells, C1 controls) shown in caret notation (`^[`), so file content
    /// can never drive the terminal. Tabs become spaces; newlines are kept.
    package var terminalSafe: String {
        guard unicodeScalars.contains(where: \.needsEscapingForTerminal) else { return self }
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars { out.appendTerminalSafe(scalar) }
        return String(out)
    }
}

extension String.UnicodeScalarView {
    /// Appends `scalar` as `terminalSafe` shows it.
    package mutating func appendTerminalSafe(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x0A: append(scalar)
        case 0x09: append(contentsOf: "    ".unicodeScalars)
        case 0x00..<0x20: append(contentsOf: ["^", Unicode.Scalar(scalar.value + 0x40)!])
        case 0x7F: append(contentsOf: "^?".unicodeScalars)
        case 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            // C1 controls, line separators and bidirectional overrides.
            append(contentsOf: "<U+\(String(scalar.value, radix: 16, uppercase: true))>".unicodeScalars)
        default: append(scalar)
        }
    }
}

extension Unicode.Scalar {
    var needsEscapingForTerminal: Bool {
        switch value {
        case 0x0A: false
        case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
