import Foundation

/// What BM25 alone does not know of a hit, applied to the best `window` of its ranking by both
/// stores alike: a file named as the query (`git rebase` → `git-rebase.1.gz`, `itertools` →
/// `itertools.html`), a title that holds the query's words, a translation in another language
/// than the user's, a change log or release notes that win on common words. Each is a factor
/// on the BM25 score; the factors were chosen on Docent's own judged questions
/// (`Benchmarks/relevance/`, `docent-bench relevance`), not on single examples.
extension FTSExpression {
    /// Whether every word of it must be in a match (words, phrases and prefixes joined by AND,
    /// a negation's positive part): how near they stand then means something.
    public var isConjunction: Bool {
        switch self {
        case .term, .prefix, .phrase: true
        case .and(let parts): parts.allSatisfy(\.isConjunction)
        case .or: false
        case .not(let positive, _): positive.isConjunction
        case .columns(_, let inner): inner.isConjunction
        }
    }

    /// How many words, phrases or prefixes it joins (a phrase is one).
    public var parts: Int {
        switch self {
        case .term, .prefix, .phrase: 1
        case .and(let parts), .or(let parts): parts.reduce(0) { $0 + $1.parts }
        case .not(let positive, _): positive.parts
        case .columns(_, let inner): inner.parts
        }
    }
}

public enum Relevance {
    /// How many of BM25's best are ranked again (a page past it keeps BM25's order).
    public static let window = 50

    /// The words of the query's positive part, lowercased, in order.
    static func words(_ expression: FTSExpression?) -> [String] {
        expression?.words(withPrefixes: true).map { $0.lowercased() } ?? []
    }

    /// The user's language (`LANG`'s, `de` of `de_DE.UTF-8`), nil for C/POSIX or none.
    static let userLanguage: String? = {
        let environment = ProcessInfo.processInfo.environment
        let value = environment["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LANG"] ?? ""
        let language = value.prefix { $0.isLetter }.lowercased()
        return language.isEmpty || language == "c" || language == "posix" ? nil : language
    }()

    /// Folder names of translations: a language code (`de`, `pt_BR`, `zh_CN`, `sr@latin`).
    /// Looked at as bytes: every folder of every hit's path is asked (a path at a million files
    /// averages 486 bytes; as characters this was a third of the window's reranking).
    static func isLanguageFolder(_ name: some Collection<UInt8>) -> Bool {
        // Short ASCII: longer names are not looked at.
        guard name.count <= 12 else { return false }
        let base = name.prefix { $0 != UInt8(ascii: "@") && $0 != UInt8(ascii: ".") }
        let parts = base.split(separator: UInt8(ascii: "_"))
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ (0x61...0x7a).contains($0) }),
              parts.count <= 2, parts.dropFirst().allSatisfy({ $0.count == 2 && $0.allSatisfy { (0x41...0x5a).contains($0) } })
        else { return false }
        return knownLanguages.contains(String(decoding: first, as: UTF8.self))
    }

    static let knownLanguages: Set<String> = [
        "ar", "bg", "ca", "cs", "da", "de", "el", "es", "et", "eu", "fa", "fi", "fr", "gl", "he", "hr", "hu", "id", "it", "ja", "ko",
        "lt", "lv", "nb", "nl", "nn", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh",
    ]

    /// A file named as one word of a longer query (`logging.html` for `python logging tutorial`).
    static let nameWordFactor = 1.2
    /// A file named as the module of a dotted name asked for (`functools.html` for `functools.lru_cache`).
    /// Below a file named as the whole query (3): `concurrent.futures.html` before `concurrent.rst`.
    /// (On the judged questions 1, 1.5, 2, 3, 4 gave MRR 0.820, 0.820, 0.821, 0.829, 0.835, but
    /// from 3 up the held-out set's fell, 0.697 → 0.690, 0.688: 2 kept.)
    static let qualifiedNameFactor = 2.0
    /// A title holding every word of the query (part of them: part of it, squared).
    static let titleFactor = 1.0
    /// A man page of sections 2 and 3 (programming interfaces), against the others.
    /// (Chosen on the judged questions: 1, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5 gave MRR 0.805, 0.804,
    /// 0.804, 0.811, 0.816, 0.817, 0.817; the mildest on the plateau kept.)
    static let programmingSectionFactor = 0.7

    /// Words side by side (a distance of 1) make the score 1 + this times as much; words
    /// further apart, by as much over their distance (SQLite's `docent_proximity`).
    static let proximityFactor = 0.25

    /// The factor of one hit for a query of `words` whose words stand `distance` apart in it
    /// (nil or 0: not known, or one word).
    static func factor(path: [UInt8], title: String?, words: [String], distance: Double? = nil) -> Double {
        guard !words.isEmpty else { return 1 }
        // The path's folders and name split as bytes (a path at a million files averages 486
        // bytes: split as characters, this was a search's slowest step after SQLite's).
        let components = path.split(separator: UInt8(ascii: "/"))
        let name = components.last.map { String(decoding: $0, as: UTF8.self).lowercased() } ?? ""
        let stem = name.prefix { $0 != "." }
        let titleWords = title.map { Set($0.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "_" }.flatMap { singulars(String($0)) }) } ?? []
        var factor = 1.0
        // The query's words near each other.
        if let distance, distance >= 1 { factor *= 1 + proximityFactor / distance }
        // Named as the query: the whole query ("git rebase", "git-rebase"; "systemd.service" →
        // systemd.service.5.gz, "os.path" → os.path.html), or one word of it. Words the name
        // abbreviates count as its abbreviation (`R frequently asked questions`: `R-FAQ.pdf`).
        let named = abbreviated(words, by: Set(stem.split { $0 == "-" || $0 == "_" }.map(String.init)))
        let joined = [named.joined(separator: "-"), named.joined(separator: "_"), named.joined()]
        let page = manPage(name, folders: components.dropLast())
        let dotted = named.joined(separator: ".")
        if joined.contains(where: { $0 == stem }) || named.joined(separator: " ") == name
            || dotted == page?.name || dotted == withoutExtension(name) {
            factor *= 3
        } else if named.count > 1, named.contains(where: { $0 == stem }) {
            factor *= nameWordFactor
        } else if named.count == 1, page == nil, let dot = named[0].firstIndex(of: "."), case let module = named[0][..<dot],
                  !module.isEmpty, stem == module || stem.hasPrefix(module + "-") {
            // A dotted name (`functools.lru_cache`, `asyncio.gather`): the file named as what
            // holds it, its module's page (`functools.html`, `asyncio-task.html`) or source; not
            // a man page, named as a command (`systemd.service` is not about systemd(1)).
            factor *= qualifiedNameFactor
        }
        // The title holds the query's words: the more of them, the more (all of them most); the
        // words it abbreviates as its abbreviation ("R FAQ").
        if !titleWords.isEmpty {
            // A dotted name's parts are words of a title (`apt.conf` in "apt.conf(5) — Configuration
            // file for APT", `collections.OrderedDict` half in "collections — Container datatypes").
            let parts = abbreviated(words, by: titleWords).flatMap { word in word.contains(".") ? word.split(separator: ".").map(String.init) : [word] }
            let covered = Double(parts.filter { singulars($0).contains(where: titleWords.contains) }.count) / Double(max(parts.count, 1))
            factor *= 1 + titleFactor * covered * covered
        }
        // A man page of the programming sections (2, system calls; 3, library functions) below a
        // command's or a file format's of the same words, as `man` itself orders them
        // (`mount a filesystem`: mount(8) before mount(2)).
        if let section = page?.section.first, section == "2" || section == "3" {
            factor *= programmingSectionFactor
        }
        // Another language's translation, below the user's own (never removed).
        if components.dropLast().contains(where: { folder in
            isLanguageFolder(folder) && String(decoding: folder.prefix(2), as: UTF8.self) != (userLanguage ?? "en")
        }) {
            factor *= 0.5
        }
        // Change logs and release notes: long, and about everything.
        if stem.hasPrefix("changelog") || stem == "news" || stem.hasPrefix("relnotes") || components.dropLast().contains(Array("RelNotes".utf8)[...])
            || stem.contains("releasenotes") || stem == "history" {
            factor *= 0.5
        }
        return factor
    }

    /// `words` with each run of three to five of them whose initials `held` holds as a word
    /// replaced by those initials (`frequently asked questions` → faq, `portable document
    /// format` → pdf), the longest run first. Two words are not taken: their initials are too
    /// often a word of their own.
    static func abbreviated(_ words: [String], by held: Set<String>) -> [String] {
        guard words.count >= 3, !held.isEmpty else { return words }
        var out: [String] = []
        var index = 0
        while index < words.count {
            let run = (3...5).reversed().first { length in
                guard index + length <= words.count else { return false }
                return held.contains(String(words[index..<index + length].compactMap(\.first)))
            }
            if let run {
                out.append(String(words[index..<index + run].compactMap(\.first)))
                index += run
            } else {
                out.append(words[index])
                index += 1
            }
        }
        return out
    }

    /// A man page's name and section from its file's name (`mount.8.gz` → mount, 8), when a
    /// folder of its path is a man section's (`man8`, `man3`).
    static func manPage(_ name: String, folders: ArraySlice<ArraySlice<UInt8>>) -> (name: String, section: Substring)? {
        guard let folder = folders.last, folder.count >= 4, folder.starts(with: Array("man".utf8)),
              let digit = folder.dropFirst(3).first, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(digit) else { return nil }
        var base = Substring(name)
        for suffix in [".gz", ".bz2", ".xz", ".zst", ".lzma"] where base.hasSuffix(suffix) { base = base.dropLast(suffix.count) }
        guard let dot = base.lastIndex(of: "."), base[base.index(after: dot)...].first?.isNumber == true else { return nil }
        return (String(base[..<dot]), base[base.index(after: dot)...])
    }

    /// `name` without its last extension (`os.path.html` → os.path), nil when it has none.
    static func withoutExtension(_ name: String) -> String? {
        name.lastIndex(of: ".").map { String(name[..<$0]) }
    }

    /// How many of `words` a file's title, name or folders hold (a name's parts: `git-stash.1.gz`
    /// holds "git" and "stash"; the folders the index holds as a field, `FolderWords`:
    /// `gnuplot/htmldocs/node117.html`, "Histograms", holds "gnuplot" and "histogram").
    static func covered(_ words: [String], path: [UInt8], title: String?) -> Int {
        let slash = path.lastIndex(of: UInt8(ascii: "/")) ?? path.startIndex
        let name = String(decoding: path[slash...], as: UTF8.self)
        let folders = FolderWords.words(ofParent: Array(path[..<slash]))
        let held = Set([title ?? "", name, folders].joined(separator: " ").lowercased().split { !$0.isLetter && !$0.isNumber }
            .flatMap { singulars(String($0)) })
        return Set(words.map(singulars)).filter { $0.contains(where: held.contains) }.count
    }

    /// A word's possible singulars: Harman's, and for "es" after a hissing sound (s, x, z,
    /// ch, sh: where English spells a plural "es") the word without it — "processes" is
    /// "process", which Harman's rule ("es" → "e") makes "processe", as "classes", "matches",
    /// "boxes"; "caches" is "cache", which the rule gets right; "locales" is never "local".
    static func singulars(_ word: String) -> [String] {
        let harman = singular(word)
        guard word.count > 4, word.hasSuffix("es") else { return [harman] }
        let bare = String(word.dropLast(2))
        guard ["s", "x", "z", "ch", "sh"].contains(where: { bare.hasSuffix($0) }), bare != harman else { return [harman] }
        return [harman, bare]
    }

    /// A word without its plural `s` (Harman's S-stemmer): "dates" and "date", "libraries" and
    /// "library" are one word of a title, as they are one term of the index.
    static func singular(_ word: String) -> String {
        guard word.count > 3, word.hasSuffix("s") else { return word }
        if word.hasSuffix("ies"), !word.hasSuffix("eies"), !word.hasSuffix("aies") { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("es"), !word.hasSuffix("aes"), !word.hasSuffix("ees"), !word.hasSuffix("oes") { return String(word.dropLast()) }
        if word.hasSuffix("us") || word.hasSuffix("ss") { return word }
        return String(word.dropLast())
    }

    /// `hits` (BM25's order, the best first) ordered again by each one's factor for `match`,
    /// their scores multiplied by it; `proximity`, each hit's distance between the query's
    /// words by its id, where the store knows it.
    public static func reranked(_ hits: [SearchHit], for match: FTSExpression?, proximity: [Int64: Double] = [:]) -> [SearchHit] {
        let words = words(match)
        guard !words.isEmpty else { return hits }
        let scored = hits.enumerated().map { index, hit -> (Int, SearchHit) in
            var hit = hit
            hit.score *= factor(path: hit.path, title: hit.title, words: words, distance: proximity[hit.id])
            return (index, hit)
        }
        return scored.sorted { $0.1.score != $1.1.score ? $0.1.score > $1.1.score : $0.0 < $1.0 }.map(\.1)
    }
}
