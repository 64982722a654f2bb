public import SystemPackage

/// Which directory each inotify watch stands for, both ways.
public struct WatchTree: Sendable {
    public private(set) var pathOf: [Int32: FilePath] = [:]
    public private(set) var watchOf: [FilePath: Int32] = [:]

    public var count: Int { pathOf.count }

    /// Records that `watch` watches `path` (a watch the kernel hands out again for a
    /// directory it already watches keeps one entry).
    mutating func add(_ watch: Int32, _ path: FilePath) {
        if let old = pathOf[watch], old != path { watchOf[old] = nil }
        pathOf[watch] = path
        watchOf[path] = watch
    }

    /// Forgets `watch`; returns the directory it stood for.
    @discardableResult
    mutating func remove(_ watch: Int32) -> FilePath? {
        guard let path = pathOf.removeValue(forKey: watch) else { return nil }
        if watchOf[path] == watch { watchOf[path] = nil }
        return path
    }

    /// Forgets every watch at or under `directory`; returns them (to be removed from the kernel).
    mutating func removeSubtree(_ directory: FilePath) -> [Int32] {
        let gone = watchOf.filter { $0.key.isWithin(directory) }
        for (path, watch) in gone {
            watchOf[path] = nil
            pathOf[watch] = nil
        }
        return Array(gone.values)
    }

    /// Renames every watched directory at or under `from` to lie under `to`.
    mutating func move(_ from: FilePath, to: FilePath) {
        let moving = watchOf.filter { $0.key.isWithin(from) }
        for (path, _) in moving { watchOf[path] = nil }
        for (path, watch) in moving {
            let new = path.replacingPrefix(from, with: to)
            pathOf[watch] = new
            watchOf[new] = watch
        }
    }
}
