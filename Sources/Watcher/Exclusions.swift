#if canImport(Glibc)
import Glibc
#endif
import FileAccess
public import SystemPackage

/// Which files and directories are left alone: shell globs matched against a name, or,
/// when the pattern holds a "/", against the whole absolute path.
///
/// The corresponding C function is `fnmatch`.
public struct Exclusions: Sendable, Hashable {
    /// Patterns matched against one path component.
    public private(set) var namePatterns: [String] = []
    /// Patterns matched against the whole path.
    public private(set) var pathPatterns: [String] = []
    /// Names without wildcards, compared directly (most patterns are plain names).
    private var literalNames: Set<[UInt8]> = []
    /// The name patterns as the crawler tries them on every entry: plain names, then "*x"
    /// and "x*" as suffixes and prefixes, the rest through `fnmatch`.
    private var nameMatchers: [NameMatcher] = []
    /// Exact paths left alone (Docent's own index and cache directories).
    public private(set) var paths: Set<FilePath> = [] {
        didSet { pathParents = Set(paths.map { $0.removingLastComponent() }) }
    }
    /// The directories holding one of `paths`: only their entries need their path built.
    private var pathParents: Set<FilePath> = []
    /// Names of marker files (`.noindex`): a directory holding one is left alone with
    /// everything under it, as Spotlight and Nextcloud do.
    public private(set) var markers: Set<FilePath.Component> = [] {
        didSet { markerNames = Self.sortedBytes(markers.map(\.string)) }
    }
    private var markerNames: [[UInt8]] = []

    /// Exclusions from `patterns`, the exact `paths`, and the `markers` that exclude the
    /// directory holding them.
    public init(_ patterns: [String] = [], paths: [FilePath] = [], markers: [String] = []) {
        self.paths = Set(paths)
        pathParents = Set(paths.map { $0.removingLastComponent() })
        self.markers = Set(markers.compactMap { FilePath.Component($0) })
        markerNames = Self.sortedBytes(self.markers.map(\.string))
        for pattern in patterns where !pattern.isEmpty {
            if pattern.contains("/") {
                pathPatterns.append(pattern)
            } else if pattern.contains(where: { "*?[\\".contains($0) }) {
                namePatterns.append(pattern)
                nameMatchers.append(NameMatcher(pattern))
            } else {
                literalNames.insert(Array(pattern.utf8))
            }
        }
        // Sorted: derived values must not differ between equal exclusions (they are Hashable).
        nameMatchers = literalNames.sorted { $0.lexicographicallyPrecedes($1) }.map { .literal($0) } + nameMatchers
    }

    private static func sortedBytes(_ names: [String]) -> [[UInt8]] {
        names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Every pattern, plain names first.
    public var patterns: [String] {
        literalNames.map { String(decoding: $0, as: UTF8.self) }.sorted() + namePatterns + pathPatterns
    }

    /// Whether nothing is excluded.
    public var isEmpty: Bool { literalNames.isEmpty && namePatterns.isEmpty && pathPatterns.isEmpty && paths.isEmpty && markers.isEmpty }

    /// These exclusions with `more` exact paths left alone too.
    public func adding(paths more: some Sequence<FilePath>) -> Exclusions {
        var copy = self
        copy.paths.formUnion(more)
        return copy
    }

    /// Whether `name` is a marker that leaves its directory alone.
    public func isMarker(_ name: FilePath.Component) -> Bool { markers.contains(name) }

    /// Whether the directory at `path` holds a marker (one `lstat` per marker name).
    public func isMarked(_ path: FilePath) -> Bool {
        markers.contains { (try? FileStatus.lstat(path.appending($0))) != nil }
    }

    /// Whether the entry `name` inside `directory` is excluded.
    public func excludes(_ name: FilePath.Component, in directory: FilePath) -> Bool {
        if !nameMatchers.isEmpty, name.withPlatformString({ matchesName($0) }) { return true }
        return mayExcludePaths(in: directory) && excludesPath(directory.appending(name))
    }

    /// Whether an entry of `directory` can be excluded by its path (an exact path or a
    /// pattern with "/"), not only by its name: worked out once per directory by a crawl.
    public func mayExcludePaths(in directory: FilePath) -> Bool {
        !pathPatterns.isEmpty || (!paths.isEmpty && pathParents.contains(directory))
    }

    /// What a crawl does with an entry of a directory.
    public enum Verdict: Sendable {
        /// Reported (and entered, if a directory).
        case kept
        /// Neither reported nor entered.
        case excluded
        /// A marker file: its directory is left alone.
        case marker
    }

    /// Whether the entry `name` inside `directory` is a marker, excluded or kept, its path
    /// looked at only when `checkingPaths` (from `mayExcludePaths(in:)`): one pass over the
    /// name's bytes, for a crawl's every entry.
    public func verdict(_ name: FilePath.Component, in directory: FilePath, checkingPaths: Bool) -> Verdict {
        if !nameMatchers.isEmpty || !markerNames.isEmpty {
            let verdict = name.withPlatformString { cName -> Verdict in
                let length = strlen(cName)
                if markerNames.contains(where: { $0.count == length && memcmp($0, cName, length) == 0 }) { return .marker }
                return matchesName(cName) ? .excluded : .kept
            }
            if verdict != .kept { return verdict }
        }
        return checkingPaths && excludesPath(directory.appending(name)) ? .excluded : .kept
    }

    /// Whether the name `cName` matches a name pattern.
    private func matchesName(_ cName: UnsafePointer<CChar>) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: cName, count: strlen(cName))
        return nameMatchers.contains { $0.matches(bytes, cName) }
    }

    /// Whether `path` is one of the exact paths or matches a pattern with "/".
    private func excludesPath(_ path: FilePath) -> Bool {
        if !paths.isEmpty, paths.contains(path) { return true }
        return path.withPlatformString { cPath in
            pathPatterns.contains { fnmatch($0, cPath, 0) == 0 }
        }
    }

    /// Whether `path` (absolute) is excluded by its own name or by any directory above it.
    public func excludes(_ path: FilePath) -> Bool {
        var directory = FilePath("/")
        for component in path.components {
            if excludes(component, in: directory) { return true }
            directory.append(component)
        }
        return false
    }
}

/// One name pattern in the form cheapest to try: most are a plain name (`.git`), a suffix
/// (`*.swp`) or a prefix (`.#*`), compared as bytes; the rest go to `fnmatch`.
private enum NameMatcher: Sendable, Hashable {
    case literal([UInt8])
    case suffix([UInt8])
    case prefix([UInt8])
    case glob(String)

    init(_ pattern: String) {
        let bytes = Array(pattern.utf8)
        let special: (UInt8) -> Bool = { "*?[\\".utf8.contains($0) }
        if bytes.first == UInt8(ascii: "*"), !bytes.dropFirst().contains(where: special) {
            self = .suffix(Array(bytes.dropFirst()))
        } else if bytes.last == UInt8(ascii: "*"), !bytes.dropLast().contains(where: special) {
            self = .prefix(Array(bytes.dropLast()))
        } else {
            self = .glob(pattern)
        }
    }

    /// Whether the name `bytes` (also as the C string `cName`) matches.
    func matches(_ bytes: UnsafeRawBufferPointer, _ cName: UnsafePointer<CChar>) -> Bool {
        switch self {
        case .literal(let literal):
            return bytes.count == literal.count && bytes.elementsEqual(literal)
        case .suffix(let suffix):
            return bytes.count >= suffix.count && bytes[(bytes.count - suffix.count)...].elementsEqual(suffix)
        case .prefix(let prefix):
            return bytes.count >= prefix.count && bytes[..<prefix.count].elementsEqual(prefix)
        case .glob(let pattern):
            return fnmatch(pattern, cName, 0) == 0
        }
    }
}
