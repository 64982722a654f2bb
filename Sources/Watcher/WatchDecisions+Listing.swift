import SystemPackage

extension WatchDecisions {
    /// The first `count` of `paths` in the order of their strings, without sorting them all
    /// (statistics are asked for often, and a tree over the watch limit has a great many).
    static func first(_ count: Int, of paths: some Collection<FilePath>) -> [FilePath] {
        guard paths.count > count else { return paths.sorted { $0.string < $1.string } }
        var kept: [(String, FilePath)] = []
        kept.reserveCapacity(count + 1)
        for path in paths {
            let key = path.string
            if kept.count == count, let last = kept.last, key >= last.0 { continue }
            var at = 0, end = kept.count  // the first kept after `key`
            while at < end {
                let middle = (at + end) / 2
                if kept[middle].0 > key { end = middle } else { at = middle + 1 }
            }
            kept.insert((key, path), at: at)
            if kept.count > count { kept.removeLast() }
        }
        return kept.map(\.1)
    }
}
