/// The lines of a text that hold matches, each with its matches: what a reader opened at the
/// match shows (`docent preview --query`, the viewer's "3 of 17").
public struct MatchedLine: Sendable, Equatable {
    /// 1-based.
    public var number: Int
    /// The line's UTF-8 bytes in the text, without its newline.
    public var bytes: Range<Int>
    /// Its matches, as ranges of the text's bytes (within `bytes`).
    public var marks: [Range<Int>]

    /// The lines of `text` holding `marks` (ranges of its UTF-8 bytes, in order, as
    /// `TextWords.matches(in:of:)` gives them), in order. A match over a line break counts on
    /// the line it starts on, cut at its end.
    public static func lines(of text: String, marks: [Range<Int>]) -> [MatchedLine] {
        guard !marks.isEmpty else { return [] }
        var lines: [MatchedLine] = []
        var number = 1, start = 0, next = 0
        var text = text
        return text.withUTF8 { bytes in
            var i = 0
            while i <= bytes.count, next < marks.count {
                guard i == bytes.count || bytes[i] == UInt8(ascii: "\n") else {
                    i += 1
                    continue
                }
                var line = MatchedLine(number: number, bytes: start..<i, marks: [])
                while next < marks.count, marks[next].lowerBound < i || (i == bytes.count && marks[next].lowerBound <= i) {
                    let mark = marks[next]
                    if mark.lowerBound >= start { line.marks.append(mark.lowerBound..<min(mark.upperBound, i)) }
                    next += 1
                }
                if !line.marks.isEmpty { lines.append(line) }
                number += 1
                start = i + 1
                i += 1
            }
            return lines
        }
    }

    /// The line's text at most about `width` bytes wide: the whole line when it fits, else
    /// a window from a little before its first match, cut on character boundaries, with
    /// whether it was cut before and after. Marks are given relative to the window's text.
    public func window(in text: String, width: Int = 240) -> (text: String, marks: [Range<Int>], cutBefore: Bool, cutAfter: Bool) {
        var text = text
        return text.withUTF8 { bytes in
            var from = self.bytes.lowerBound, to = self.bytes.upperBound
            if to - from > width {
                from = max(from, (marks.first?.lowerBound ?? from) - width / 4)
                while from > self.bytes.lowerBound, from < bytes.count, bytes[from] & 0xC0 == 0x80 { from -= 1 }
                to = min(to, from + width)
                while to < self.bytes.upperBound, to < bytes.count, bytes[to] & 0xC0 == 0x80 { to -= 1 }
            }
            let window = String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]), as: UTF8.self)
            let marks = self.marks.compactMap { mark -> Range<Int>? in
                let lower = max(mark.lowerBound, from), upper = min(mark.upperBound, to)
                return lower < upper ? (lower - from)..<(upper - from) : nil
            }
            return (window, marks, from > self.bytes.lowerBound, to < self.bytes.upperBound)
        }
    }
}
