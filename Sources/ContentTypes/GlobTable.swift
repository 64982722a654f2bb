#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One glob pattern from shared-mime-info's `globs2` (or a declared extension).
package struct GlobRule: Sendable, Hashable {
    /// The MIME type the pattern names; empty when the rule names a type by `identifier`.
    package var mimeType: String
    /// The type identifier the rule names directly (a declared extension of a type without MIME type).
    package var identifier: String? = nil
    /// The pattern, such as `*.tar.gz`, `Makefile` or `*.[1-9]`.
    package var pattern: String
    /// Higher weights win; shared-mime-info's default is 50.
    package var weight: Int
    /// Whether the pattern must match the name's case exactly (the `cs` flag).
    package var caseSensitive: Bool
}

/// A name matched to a MIME type by a glob.
package struct GlobMatch: Sendable, Hashable {
    /// The rule that matched.
    package var rule: GlobRule
    /// Whether the rule was a literal name (such as `Makefile`), which beats every pattern.
    package var isLiteral: Bool
}

/// Matches file names against glob rules the way the shared-mime-info specification says:
/// literal names first, then patterns ordered by weight and, at equal weight, by length
/// (`*.tar.gz` before `*.gz`). Patterns without the `cs` flag match the lower-cased name.
///
/// Pure: a function of its rules and the name, no disk access.
package struct GlobTable: Sendable {
    private var literals: [String: [GlobRule]] = [:]          // exact name (cs) or lowercased pattern (ci)
    private var suffixes: [String: [GlobRule]] = [:]          // "*.ext" rules keyed by ".ext" as written
    private var patterns: [GlobRule] = []                     // everything else, matched with fnmatch
    private var maxSuffixLength = 0
    /// Every rule, in the order added.
    package private(set) var rules: [GlobRule] = []

    /// An empty table.
    package init() {}

    /// A table holding `rules`.
    package init(_ rules: some Sequence<GlobRule>) {
        for rule in rules { add(rule) }
    }

    /// Adds a rule.
    package mutating func add(_ rule: GlobRule) {
        rules.append(rule)
        let p = rule.pattern
        if !p.contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) {
            literals[rule.caseSensitive ? p : p.lowercased(), default: []].append(rule)
        } else if p.hasPrefix("*."), !p.dropFirst().contains(where: { $0 == "*" || $0 == "?" || $0 == "[" }) {
            let key = String(p.dropFirst())
            suffixes[key, default: []].append(rule)
            maxSuffixLength = max(maxSuffixLength, key.utf8.count)
        } else {
            patterns.append(rule)
        }
    }

    /// The rules matching `name` (a file name, not a path), best first.
    ///
    /// A literal match excludes patterns. Several results mean the name alone is ambiguous
    /// or that weaker rules matched too; callers choose among them with content evidence.
    package func matches(fileName name: String) -> [GlobMatch] {
        let lower = name.lowercased()
        var found: [GlobMatch] = []
        for rule in literals[name] ?? [] where rule.caseSensitive { found.append(GlobMatch(rule: rule, isLiteral: true)) }
        for rule in literals[lower] ?? [] where !rule.caseSensitive { found.append(GlobMatch(rule: rule, isLiteral: true)) }
        if !found.isEmpty { return Self.ordered(found) }

        // Every suffix starting at a dot, longest first.
        var index = name.startIndex
        while let dot = name[index...].firstIndex(of: ".") {
            let suffix = name[dot...]
            if suffix.utf8.count <= maxSuffixLength {
                let exact = String(suffix)
                for rule in suffixes[exact] ?? [] where rule.caseSensitive {
                    found.append(GlobMatch(rule: rule, isLiteral: false))
                }
                for rule in suffixes[exact.lowercased()] ?? [] where !rule.caseSensitive {
                    found.append(GlobMatch(rule: rule, isLiteral: false))
                }
            }
            index = name.index(after: dot)
        }
        for rule in patterns {
            let subject = rule.caseSensitive ? name : lower
            if fnmatch(rule.pattern, subject, 0) == 0 { found.append(GlobMatch(rule: rule, isLiteral: false)) }
        }
        return Self.ordered(found)
    }

    private static func ordered(_ found: [GlobMatch]) -> [GlobMatch] {
        var seen = Set<String>()
        return found.sorted { a, b in
            if a.rule.weight != b.rule.weight { return a.rule.weight > b.rule.weight }
            return a.rule.pattern.utf8.count > b.rule.pattern.utf8.count
        }.filter { seen.insert($0.rule.identifier ?? $0.rule.mimeType).inserted }
    }
}
