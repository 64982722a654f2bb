/// Words a question is written with but no answer needs: `list block devices by uuid` finds
/// blkid(8), which never says "by". Among other words they are left out of the conjunction
/// (as a search box does); alone, in a phrase (`"to be or not to be"`) or in `title:` they
/// stay. English only: the language most queries and most documentation here are in.
enum StopWords {
    static let english: Set<String> = [
        "a", "an", "the", "of", "for", "to", "by", "in", "on", "at", "with", "from", "into", "onto", "and", "or", "as",
        "is", "are", "was", "were", "be", "been", "do", "does", "did", "how", "what", "which", "who", "whom", "where",
        "when", "why", "this", "that", "these", "those", "it", "its", "i", "my", "me", "we", "our", "you", "your",
        "can", "should", "would", "there", "some", "about",
    ]

    static func isStopWord(_ part: FTSExpression) -> Bool {
        if case .term(let word) = part { english.contains(word.lowercased()) } else { false }
    }

    /// `parts` (joined by AND) without their stop words, unless nothing else would be left.
    static func optional(_ parts: [FTSExpression]) -> [FTSExpression] {
        guard parts.count > 1 else { return parts }
        let kept = parts.filter { !isStopWord($0) }
        return kept.isEmpty ? parts : kept
    }
}
