/// One document typeset in several forms side by side — `gnuplot.pdf`, `gnuplot.dvi` and
/// `gnuplot.ps` in one folder, as TeX and documentation packages ship them — is one hit, the
/// best placed, with the other forms listed: their words are one text, and ten results of one
/// manual in three forms pushed the sections asked for off the page. Not identical files
/// (`IdenticalHits`), so listed apart ("also as"), for the viewer and `docent search` alike.
/// A Sphinx site's copy of a page's source (`html/_sources/library/tarfile.rst.txt`, beside
/// `html/library/tarfile.html`) is a form of that page too: the same words, and two hits of one
/// page where a reader wants one.
public enum Renditions {
    /// The typeset forms, compressed or not, the LaTeX source they are typeset from (`lineno.tex.gz`
    /// beside `lineno.pdf`, as TeX Live's documentation ships them), and a web page (a manual
    /// shipped as HTML and PDF).
    static let extensions = [".pdf", ".dvi", ".ps", ".pdf.gz", ".dvi.gz", ".ps.gz", ".pdf.bz2", ".ps.bz2", ".pdf.xz", ".ps.xz",
                             ".tex", ".tex.gz", ".html", ".htm"]
    /// The extensions of the sources Sphinx copies to `_sources/` (with `.txt` added).
    static let sphinxSources = [".rst", ".md", ".rest", ".ipynb"]

    /// The document a hit is a form of — its host, folder and name without the form's
    /// extension, folded — or nil for a file of another kind.
    static func document(of hit: SearchHit) -> String? {
        let place = hit.displayPlace
        let lowered = place.lowercased()
        guard let slash = lowered.lastIndex(of: "/") else { return nil }
        let name = lowered[lowered.index(after: slash)...]
        if name.hasSuffix(".txt"), let sources = lowered.range(of: "/_sources/") {
            var page = lowered[sources.upperBound...].dropLast(4)
            if let source = sphinxSources.first(where: { page.hasSuffix($0) }) { page = page.dropLast(source.count) }
            return page.isEmpty ? nil : lowered[..<sources.lowerBound] + "/" + page
        }
        for suffix in extensions where name.hasSuffix(suffix) && name.count > suffix.count {
            return String(lowered.dropLast(suffix.count))
        }
        return nil
    }

    /// `hits` with each document's forms shown once, by the best placed, and the places of the
    /// others by that hit's id (in the order they came).
    public static func folded(_ hits: [SearchHit]) -> (hits: [SearchHit], alsoAs: [Int64: [String]]) {
        var leader: [String: Int64] = [:]
        var alsoAs: [Int64: [String]] = [:]
        var kept: [SearchHit] = []
        for hit in hits {
            if let document = document(of: hit) {
                if let first = leader[document] {
                    alsoAs[first, default: []].append(hit.displayPlace)
                    continue
                }
                leader[document] = hit.id
            }
            kept.append(hit)
        }
        return (kept, alsoAs)
    }
}
