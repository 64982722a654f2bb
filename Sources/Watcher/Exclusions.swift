#if canImport(Glibc)
import Glibc
#endif
import FileAccess
import SystemPackage

/// Which files and directories are left alone: shell globs matched against a name, or,
/// when the pattern holds a "/", against the whole absolute path.
///
/// The corresponding C function is `fnmatch`.
public struct Exclusions: Sendable, Hashable {
    /// Patterns matched against one path component.
    public private(set) var namePatterns: [String] = []
    /// Patterns matched against the whole path.
    public private(set) var pathPatterns: [String] = []
    /// Names without wildcards, looked up directly (most patterns are plain names).
    private var literalNames: Set<[UInt8]> = []
    /// Exact paths left alone (Docent's own index and cache directories).
    public private(set) var paths: Set<FilePath> = []
    /// Names of marker files (`.noindex`): a directory holding one is left alone with
    /// everything under it, as Spotlight and Nextcloud do.
    public private(set) var markers: Set<FilePath.Component> = []

    /// Exclusions from `patterns`, the exact `paths`, and the `markers` that exclude the
    /// directory holding them.
    public init(_ patterns: [String] = [], paths: [FilePath] = [], markers: [String] = []) {
        self.paths = Set(paths)
        self.markers = Set(markers.compactMap { FilePath.Component($0) })
        for pattern in patterns where !pattern.isEmpty {
            if pattern.contains("/") {
                pathPatterns.append(pattern)
            } else if pattern.contains(where: { "*?[\\".contains($0) }) {
                namePatterns.append(pattern)
            } else {
                literalNames.insert(Array(pattern.utf8))
            }
        }
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
        if !literalNames.isEmpty || !namePatterns.isEmpty {
            let excluded = name.withPlatformString { cName -> Bool in
                if !literalNames.isEmpty {
                    let bytes = UnsafeRawBufferPointer(start: cName, count: strlen(cName))
                    if literalNames.contains(Array(bytes)) { return true }
                }
                return namePatterns.contains { fnmatch($0, cName, 0) == 0 }
            }
            if excluded { return true }
        }
        guard !pathPatterns.isEmpty || !paths.isEmpty else { return false }
        let path = directory.appending(name)
        if paths.contains(path) { return true }
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
