/// PDFs written from the specification (ISO 32000-1, 7.5: header, objects, cross-reference
/// table, trailer) for tests: nothing taken from another project's samples.
public enum SamplePDF {
    /// A valid PDF (cross-reference table with exact offsets) of `pages` pages of Helvetica
    /// text, each about 20 KB of content, with `word` on the last page and the file
    /// identifier `id` (hex) in its trailer.
    public static func make(pages: Int, word: String, id: String = "0123456789ABCDEF") -> [UInt8] {
        var out: [UInt8] = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        func object(_ body: String) {
            offsets.append(out.count)
            out += Array("\(offsets.count) 0 obj\n".utf8) + Array(body.utf8) + Array("\nendobj\n".utf8)
        }
        let kids = (0..<pages).map { "\(4 + 2 * $0) 0 R" }.joined(separator: " ")
        object("<< /Type /Catalog /Pages 2 0 R >>")
        object("<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>")
        object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        for page in 0..<pages {
            var content = ""
            for line in 0..<320 { content += "BT /F1 9 Tf 40 \(760 - line * 2) Td (line \(line) of page \(page) filler text) Tj ET\n" }
            if page == pages - 1 { content += "BT /F1 12 Tf 40 40 Td (\(word)) Tj ET\n" }
            object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents \(5 + 2 * page) 0 R >>")
            object("<< /Length \(content.utf8.count) >>\nstream\n\(content)endstream")
        }
        let xref = out.count
        out += Array("xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8) }
        out += Array("trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R /ID [<\(id)> <\(id)>] >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }
}
