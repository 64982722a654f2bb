/// The root element of an XML document, read from its first bytes without an XML parser:
/// past a byte-order mark, the declaration, processing instructions, comments and the
/// document type declaration, to the first start tag and its namespace.
///
/// Pure and bounded: it looks at most at the bytes given and never allocates more than the
/// names it returns. Not a validator: text that is not XML gives nil.
package enum XMLRoot {
    package struct Element: Sendable, Hashable {
        /// The element's namespace URI; empty when it has none.
        package var namespace: String
        package var localName: String
    }

    package static func sniff(_ bytes: [UInt8]) -> Element? {
        bytes.withUnsafeBufferPointer { sniff($0) }
    }

    package static func sniff(_ b: UnsafeBufferPointer<UInt8>) -> Element? {
        var i = 0
        let n = b.count
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func starts(_ s: StaticString) -> Bool {
            let len = s.utf8CodeUnitCount
            guard i + len <= n else { return false }
            return s.withUTF8Buffer { p in (0..<len).allSatisfy { b[i + $0] == p[$0] } }
        }
        func skip(past s: StaticString) -> Bool {
            while i < n {
                if starts(s) { i += s.utf8CodeUnitCount; return true }
                i += 1
            }
            return false
        }
        func isNameByte(_ c: UInt8) -> Bool {
            c >= 0x80 || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == 0x5F || c == 0x2D || c == 0x2E || c == 0x3A
        }
        func name() -> String? {
            let start = i
            while i < n, isNameByte(b[i]) { i += 1 }
            return i > start ? String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self) : nil
        }
        while true {
            while i < n, isSpace(b[i]) { i += 1 }
            guard i < n, b[i] == UInt8(ascii: "<") else { return nil }
            if starts("<?") { guard skip(past: "?>") else { return nil }; continue }
            if starts("<!--") { guard skip(past: "-->") else { return nil }; continue }
            if starts("<!") {
                // <!DOCTYPE name ... [ internal subset ] >
                var depth = 0
                i += 2
                while i < n {
                    let c = b[i]
                    if c == UInt8(ascii: "[") { depth += 1 }
                    else if c == UInt8(ascii: "]") { depth -= 1 }
                    else if c == UInt8(ascii: ">"), depth <= 0 { break }
                    else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                        i += 1
                        while i < n, b[i] != c { i += 1 }
                    }
                    i += 1
                }
                guard i < n else { return nil }
                i += 1
                continue
            }
            i += 1
            guard let qname = name() else { return nil }
            let prefix: String, local: String
            if let colon = qname.firstIndex(of: ":") {
                prefix = String(qname[..<colon])
                local = String(qname[qname.index(after: colon)...])
            } else {
                prefix = ""
                local = qname
            }
            // Attributes, for the namespace declaration of the element's prefix.
            let wanted = prefix.isEmpty ? "xmlns" : "xmlns:" + prefix
            var namespace = ""
            while i < n {
                while i < n, isSpace(b[i]) { i += 1 }
                guard i < n else { break }
                if b[i] == UInt8(ascii: ">") || b[i] == UInt8(ascii: "/") { break }
                guard let attribute = name() else { return Element(namespace: namespace, localName: local) }
                while i < n, isSpace(b[i]) { i += 1 }
                guard i < n, b[i] == UInt8(ascii: "=") else { break }
                i += 1
                while i < n, isSpace(b[i]) { i += 1 }
                guard i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { break }
                let quote = b[i]
                i += 1
                let start = i
                while i < n, b[i] != quote { i += 1 }
                if attribute == wanted {
                    namespace = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
                }
                i += 1
            }
            return local.isEmpty ? nil : Element(namespace: namespace, localName: local)
        }
    }
}
