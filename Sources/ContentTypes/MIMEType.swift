/// Helpers for MIME type strings (`media/subtype`).
package enum MIMEType {
    /// Whether `string` looks like `media/subtype` with token characters only.
    public static func isValid(_ string: String) -> Bool {
        let parts = string.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return string.utf8.allSatisfy { c in
            c > 0x20 && c < 0x7F && !"()<>@,;:\\\"[]?= ".utf8.contains(c) || c == 0x2F
        }
    }

    /// The MIME type without parameters, lowercased: `Text/Plain; charset=utf-8` → `text/plain`.
    public static func essence(_ string: String) -> String {
        let base = string.split(separator: ";", maxSplits: 1).first.map(String.init) ?? string
        return base.trimmingWhitespace().lowercased()
    }

    /// The media part: `text` for `text/plain`.
    public static func media(_ mime: String) -> Substring {
        mime.split(separator: "/", maxSplits: 1).first ?? Substring(mime)
    }

    /// The structured-syntax suffix: `xml` for `image/svg+xml`, nil when there is none.
    public static func suffix(_ mime: String) -> Substring? {
        guard let slash = mime.firstIndex(of: "/"), let plus = mime.lastIndex(of: "+"), plus > slash else { return nil }
        return mime[mime.index(after: plus)...]
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
