/// One document typeset in several forms side by side — `gnuplot.pdf`, `gnuplot.dvi` and
/// `gnuplot.ps` in one folder, as TeX and documentation packages ship them — is one hit, the
/// best placed, with the other forms listed: their words are one text, and ten results of one
/// manual in three forms pushed the sections asked for off the page. Not identical files
/// (`IdenticalHits`), so listed apart ("also as"), for the viewer and `docent search` alike.
public enum Renditions {
    /// The typeset forms, compressed or not.
    static let extensions = [".pdf", ".dvi", ".ps", ".pdf.gz", ".dvi.gz", ".ps.gz", ".pdf.bz2", ".ps.bz2", ".pdf.xz", ".ps.xz"]

    /// The document a hit is a form of — its host, folder and name without the form's
    /// extension, folded — or nil for a file of another kind.
    static func document(of hit: SearchHit) -> String? {
        let place = hit.displayPlace
        let lowered = place.lowercased()
        guard let slash = lowered.lastIndex(of: "/") else { return nil }
        let name = lowered[lowered.index(after: slash)...]
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
