public import SystemPackage

/// What the watcher's shell is asked to do to the kernel or the disk after a decision.
public enum WatchCommand: Hashable, Sendable {
    /// Watch the directory and every directory under it, each watched before it is listed
    /// (`WatchDecisions.listed` decides what is entered); `announce`: a change for every file found.
    case watchTree(FilePath, announce: Bool)
    /// Watch this one directory, without listing it.
    case watchDirectory(FilePath)
    /// `watchTree` each of these, in order, that is still unwatched when its turn comes.
    case retryUnwatched([FilePath])
    /// Remove these watches from the kernel.
    case unwatch([Int32])
    /// Watch the nearest existing ancestor of this missing root for its return (`WatchDecisions.awaiting`).
    case awaitRoot(FilePath)
    /// Look whether each of these roots is a directory (`WatchDecisions.missingRoot(_:isDirectory:now:)`).
    case checkRoots([FilePath])
    /// A marker went from this directory: if it holds no other, it is indexed again (`WatchDecisions.unmarked`).
    case checkMarkers(FilePath)
    /// Say this to the person running the watcher.
    case warn(String)
    /// The kernel's watch limit refused this directory (said once: the shell knows the limit).
    case warnWatchLimit(FilePath, watched: Int)
}

/// What adding one watch came to.
public enum WatchOutcome: Hashable, Sendable {
    case watched(Int32)
    /// The kernel's watch limit (`ENOSPC`): the directory is listed, rescanned at an interval.
    case limitReached
    /// Gone, not a directory, or not ours to read.
    case failed
}

/// Every decision of the watcher, pure: inotify events, listings and clock readings in,
/// `FileChange`s (in `pending`) and `WatchCommand`s out. The watch tree, rename pairs by
/// cookie, markers, overflows, the watch limit, missing roots and polled mounts are state
/// here; `Watcher` is the thin shell that applies the commands to inotify and the disk.
public struct WatchDecisions: Sendable {
    public let roots: [FilePath]
    public let exclusions: Exclusions
    public let options: WatcherOptions

    public private(set) var tree = WatchTree()
    public var pending: PendingChanges
    /// Rename halves waiting for their partner, by cookie.
    public private(set) var movedOut: [UInt32: (path: FilePath, isDirectory: Bool, at: ContinuousClock.Instant)] = [:]
    /// Directories holding a marker (`.noindex`): watched alone, for the marker's going.
    public private(set) var marked: Set<FilePath> = []
    /// Directories the watch limit left unwatched, and when they are tried again.
    public private(set) var unwatched: Set<FilePath> = []
    public private(set) var unwatchedRescanAt: ContinuousClock.Instant?
    private var warnedAboutLimit = false
    public private(set) var overflows = 0
    private var lastOverflow: ContinuousClock.Instant?
    private var backoff: Duration = .milliseconds(100)
    public private(set) var resyncAt: ContinuousClock.Instant?
    /// Roots that do not exist now, with the watch on the ancestor that waits for them.
    public private(set) var missingRoots: [FilePath: Int32] = [:]
    /// Polled directories by path; the mounts at or under the roots; the next poll.
    public private(set) var polled: [FilePath: PolledDirectory] = [:]
    public private(set) var mounts: Set<Mount> = []
    public private(set) var pollAt: ContinuousClock.Instant?
    /// Whether the mount table is followed (an unmount then arrives as a mount table change).
    public var followsMountTable = false

    public init(roots: [FilePath], exclusions: Exclusions, options: WatcherOptions) {
        self.roots = roots
        self.exclusions = exclusions
        self.options = options
        pending = PendingChanges(settle: options.settle, maximumDelay: options.maximumDelay)
    }

    /// The next moment something is due: a change settling, a rename expiring, a rescan, a poll.
    public var nextDeadline: ContinuousClock.Instant? {
        let moves = movedOut.values.map { $0.at + options.settle }
        return ([pending.nextDeadline, resyncAt, unwatchedRescanAt, pollAt].compactMap { $0 } + moves).min()
    }

    // MARK: - Events

    /// One inotify event.
    public mutating func handle(_ event: InotifyEvent, now: ContinuousClock.Instant) -> [WatchCommand] {
        if event.has(Inotify.overflow) { return overflow(now: now) }
        var commands: [WatchCommand] = missingRoots.values.contains(event.watch) ? [.checkRoots(missingRootPaths)] : []
        guard let directory = tree.pathOf[event.watch] else { return commands }
        guard !event.name.isEmpty else { return commands + handleSelf(event, directory: directory, now: now) }
        guard let name = FilePath.Component(bytes: event.name) else { return commands }
        if exclusions.isMarker(name) { return commands + markerEvent(event, in: directory, now: now) }
        // A marked directory is watched for its marker alone: what is moved in leaves the
        // index (its move out expires), what is moved out arrives as new.
        if (!marked.isEmpty && marked.contains(directory)) || exclusions.excludes(name, in: directory) { return commands }
        let path = directory.appending(name)
        if event.has(Inotify.movedFrom) {
            movedOut[event.cookie] = (path, event.isDirectory, now)
        } else if event.has(Inotify.movedTo) {
            if let origin = movedOut.removeValue(forKey: event.cookie) {
                if origin.isDirectory {
                    tree.move(origin.path, to: path)
                    marked = Set(marked.map { $0.isWithin(origin.path) ? $0.replacingPrefix(origin.path, with: path) : $0 })
                }
                pending.add(.moved(from: origin.path, to: path), at: now, isDirectory: origin.isDirectory)
            } else if event.isDirectory, options.recursive {
                commands.append(.watchTree(path, announce: true))  // moved in from outside the roots
            } else {
                pending.add(.changed(path), at: now)
            }
        } else if event.has(Inotify.delete) {
            pending.add(.removed(path), at: now, isDirectory: event.isDirectory)
        } else if event.isDirectory {
            if event.has(Inotify.create) {
                if options.recursive { commands.append(.watchTree(path, announce: true)) } else { pending.add(.changed(path), at: now) }
            }
        } else {
            pending.add(.changed(path), at: now)  // create, modify, close-write, attributes
        }
        return commands
    }

    /// Events on a watched directory itself: it was deleted, moved, unmounted or unwatched.
    private mutating func handleSelf(_ event: InotifyEvent, directory: FilePath, now: ContinuousClock.Instant) -> [WatchCommand] {
        if event.has(Inotify.ignored) { tree.remove(event.watch) }
        // An unmount is followed through the mount table, whose change comes too (a root's
        // directory is still there: it is not lost).
        if event.has(Inotify.unmount), followsMountTable { return [] }
        if roots.contains(directory), event.has(Inotify.deleteSelf) || event.has(Inotify.moveSelf) || event.has(Inotify.unmount) {
            return rootLost(directory, now: now)
        }
        return []
    }

    /// Renames whose other half never came: moved out of the roots, so removed.
    public mutating func expireMoves(now: ContinuousClock.Instant) -> [WatchCommand] {
        var commands: [WatchCommand] = []
        for (cookie, move) in movedOut where move.at + options.settle <= now {
            movedOut[cookie] = nil
            if move.isDirectory {
                commands.append(.unwatch(tree.removeSubtree(move.path)))
                marked = marked.filter { !$0.isWithin(move.path) }
            }
            pending.add(.removed(move.path), at: now)
        }
        return commands
    }

    // MARK: - Watching trees

    /// The shell watched (or failed to watch) `directory` and listed it: records the watch,
    /// files a change for each file when `announce`, and returns the subdirectories to enter
    /// (none under a marker; `directory` itself is nil-listed when it could not be read).
    public mutating func listed(_ directory: FilePath, outcome: WatchOutcome, entries: [(name: FilePath.Component, isDirectory: Bool)],
                                announce: Bool, now: ContinuousClock.Instant) -> (enter: [FilePath], commands: [WatchCommand]) {
        var commands: [WatchCommand] = []
        switch outcome {
        case .failed: return ([], [])
        case .watched(let watch):
            tree.add(watch, directory)
            unwatched.remove(directory)
        case .limitReached:
            unwatched.insert(directory)
            if unwatchedRescanAt == nil { unwatchedRescanAt = now + options.unwatchedRescanInterval }
            if !warnedAboutLimit {
                warnedAboutLimit = true
                commands.append(.warnWatchLimit(directory, watched: tree.count))
            }
        }
        // A directory holding a marker keeps its own watch (to see the marker go), no more.
        if entries.contains(where: { exclusions.isMarker($0.name) }) {
            marked.insert(directory)
            return ([], commands)
        }
        marked.remove(directory)
        var enter: [FilePath] = []
        for entry in entries where !exclusions.excludes(entry.name, in: directory) {
            let path = directory.appending(entry.name)
            if entry.isDirectory {
                if options.recursive { enter.append(path) }
            } else if announce {
                pending.add(.changed(path), at: now, isDirectory: false)
            }
        }
        return (enter, commands)
    }

    /// Every root watched, at start.
    public func start() -> [WatchCommand] {
        roots.map { .watchTree($0, announce: false) } + [.checkRoots(roots)]
    }

    /// The missing roots, in order.
    private var missingRootPaths: [FilePath] { missingRoots.keys.sorted { $0.string < $1.string } }

    // MARK: - Markers

    /// A marker (`.noindex`) came or went in `directory`.
    private mutating func markerEvent(_ event: InotifyEvent, in directory: FilePath, now: ContinuousClock.Instant) -> [WatchCommand] {
        if event.has(Inotify.create) || event.has(Inotify.movedTo) {
            guard !marked.contains(directory) else { return [] }
            // Everything under the directory leaves the index and is no longer watched; the
            // directory keeps its own watch, to see the marker go.
            let own = tree.watchOf[directory]
            let gone = tree.removeSubtree(directory).filter { $0 != own }
            if let own { tree.add(own, directory) }
            marked = marked.filter { !$0.isWithin(directory) }
            unwatched = unwatched.filter { !$0.isWithin(directory) || $0 == directory }
            marked.insert(directory)
            pending.add(.removed(directory), at: now)
            return [.unwatch(gone)]
        }
        if event.has(Inotify.delete) || event.has(Inotify.movedFrom), marked.contains(directory) {
            return [.checkMarkers(directory)]
        }
        return []
    }

    /// The shell found no marker left in `directory`: it is watched and compared again.
    public mutating func unmarked(_ directory: FilePath, now: ContinuousClock.Instant) -> [WatchCommand] {
        guard marked.remove(directory) != nil else { return [] }
        pending.add(.rescan(directory), at: now)
        return [.watchTree(directory, announce: false)]
    }

    // MARK: - Overflow and the watch limit

    private mutating func overflow(now: ContinuousClock.Instant) -> [WatchCommand] {
        overflows += 1
        if let last = lastOverflow, now - last < .seconds(5) {
            backoff = min(backoff * 2, .seconds(30))
        } else {
            backoff = .milliseconds(100)
        }
        lastOverflow = now
        if resyncAt == nil { resyncAt = now + backoff }
        return [.warn("the inotify queue overflowed (events were lost); rescanning the roots in \(backoff)")]
    }

    /// What is due at `now`: renames expired, the rescan after lost events, the watch limit's
    /// retry, a poll of network and FUSE mounts.
    public mutating func due(now: ContinuousClock.Instant) -> [WatchCommand] {
        var commands = expireMoves(now: now)
        if let at = resyncAt, at <= now { commands += resync(now: now) }
        if let at = unwatchedRescanAt, at <= now { commands += rescanUnwatched(now: now) }
        if let at = pollAt, at <= now { pollRemote(now: now) }
        return commands
    }

    /// After lost events: every directory watched again (new ones were missed) and every
    /// root compared with the index.
    private mutating func resync(now: ContinuousClock.Instant) -> [WatchCommand] {
        resyncAt = nil
        movedOut.removeAll()
        var commands: [WatchCommand] = []
        for root in roots where missingRoots[root] == nil {
            commands.append(.watchTree(root, announce: false))
            pending.add(.rescan(root), at: now)
        }
        return commands
    }

    /// Tries again to watch what the limit refused, and rescans what is still unwatched.
    private mutating func rescanUnwatched(now: ContinuousClock.Instant) -> [WatchCommand] {
        unwatchedRescanAt = nil
        let before = unwatched
        // The topmost of those directories cover the rest.
        for directory in before where !before.contains(where: { $0 != directory && directory.isWithin($0) }) {
            pending.add(.rescan(directory), at: now)
        }
        return [.retryUnwatched(before.sorted { ($0.components.count, $0.string) < ($1.components.count, $1.string) })]
    }

    /// The retry is done: if some are still unwatched, they are tried again after the interval.
    public mutating func retried(now: ContinuousClock.Instant) {
        if !unwatched.isEmpty, unwatchedRescanAt == nil { unwatchedRescanAt = now + options.unwatchedRescanInterval }
    }

    public func isUnwatched(_ directory: FilePath) -> Bool { unwatched.contains(directory) }

    // MARK: - Roots that come and go

    /// A root was deleted, moved away or unmounted: its rows go, and its return is awaited.
    private mutating func rootLost(_ root: FilePath, now: ContinuousClock.Instant) -> [WatchCommand] {
        pending.add(.removed(root), at: now)
        return [.unwatch(tree.removeSubtree(root)), .awaitRoot(root)]
    }

    /// The shell watches `ancestor`'s watch `watch` for the missing `root`.
    public mutating func awaiting(_ root: FilePath, watch: Int32) { missingRoots[root] = watch }

    /// The shell looked at a missing root: back as a directory (watched and compared), or still
    /// missing (awaited again, through whichever ancestor exists now).
    public mutating func missingRoot(_ root: FilePath, isDirectory: Bool, now: ContinuousClock.Instant) -> [WatchCommand] {
        guard let watch = missingRoots.removeValue(forKey: root) else {
            // At start: a root that is not there is awaited.
            return isDirectory ? [] : [.awaitRoot(root)]
        }
        var commands: [WatchCommand] = []
        if tree.pathOf[watch] == nil, !missingRoots.values.contains(watch) { commands.append(.unwatch([watch])) }
        if isDirectory {
            pending.add(.rescan(root), at: now)
            commands.append(.watchTree(root, announce: false))
        } else {
            commands.append(.awaitRoot(root))
        }
        return commands
    }

    // MARK: - Mounts and polling

    /// The mounts at or under a root.
    public func relevantMounts(_ all: [Mount]) -> Set<Mount> {
        Set(all.filter { mount in roots.contains { mount.path.isWithin($0) } })
    }

    /// The mounts at start (`fileSystemKind`: the remote or FUSE kind of a path, nil for local).
    public mutating func setMounts(_ all: [Mount], fileSystemKind: (FilePath) -> String?, now: ContinuousClock.Instant) {
        mounts = relevantMounts(all)
        refreshPolled(offline: [], fileSystemKind: fileSystemKind, now: now)
    }

    /// Which directories are polled: roots on a network or FUSE file system, such file systems
    /// mounted under a root, and `pollPaths`; the `offline` ones (unmounted) kept as such.
    private mutating func refreshPolled(offline: Set<FilePath>, fileSystemKind: (FilePath) -> String?, now: ContinuousClock.Instant) {
        var found: [FilePath: PolledDirectory] = [:]
        func fileSystem(_ kind: String, _ path: FilePath) -> PolledDirectory {
            let mount = mounts.filter { path.isWithin($0.path) }.max { $0.path.components.count < $1.path.components.count }
            return PolledDirectory(path: path, reason: mount.map { "\(kind) (\($0.type) from \($0.source))" } ?? kind, mounted: true)
        }
        for root in roots where missingRoots[root] == nil {
            if let kind = fileSystemKind(root) { found[root] = fileSystem(kind, root) }
        }
        for mount in mounts where !roots.contains(mount.path) && !exclusions.excludes(mount.path) && !marked.contains(where: { mount.path.isWithin($0) }) {
            if let kind = fileSystemKind(mount.path) { found[mount.path] = fileSystem(kind, mount.path) }
        }
        for path in options.pollPaths where roots.contains(where: { path.isWithin($0) }) {
            found[path] = found[path] ?? PolledDirectory(path: path, reason: PolledDirectory.listedReason, mounted: true, listed: true)
        }
        for path in offline {
            var directory = polled[path] ?? PolledDirectory(path: path, reason: "a mount", mounted: true)
            if directory.mounted { directory.reason += "; unmounted, its rows are kept until it returns" }
            directory.mounted = false
            found[path] = directory
        }
        // A directory under another polled one is covered by it.
        polled = found.filter { entry in !found.keys.contains { $0 != entry.key && entry.key.isWithin($0) } }
        let due = polled.values.contains(where: \.mounted)
        if !due { pollAt = nil } else if pollAt == nil { pollAt = now + options.pollInterval }
    }

    /// The cheap no-change pass over every mounted polled directory.
    private mutating func pollRemote(now: ContinuousClock.Instant) {
        for directory in polled.values where directory.mounted { pending.add(.rescan(directory.path), at: now) }
        pollAt = now + options.pollInterval
    }

    /// The mount table changed: a file system mounted at or under a root is watched and
    /// compared with the index; a network or FUSE one unmounted keeps its rows (it is offline,
    /// and a remount reads nothing again); a local one unmounted is compared again (its rows
    /// follow the directory underneath).
    public mutating func mountsChanged(_ all: [Mount], fileSystemKind: (FilePath) -> String?, now: ContinuousClock.Instant) -> [WatchCommand] {
        let new = relevantMounts(all), old = mounts
        let newPaths = Set(new.map(\.path)), oldPaths = Set(old.map(\.path))
        var offline = Set(polled.values.filter { !$0.mounted }.map(\.path))
        var commands: [WatchCommand] = []
        mounts = new
        for path in newPaths.subtracting(oldPaths).sorted(by: { $0.components.count < $1.components.count }) {
            offline.remove(path)
            commands.append(.watchTree(path, announce: false))
            pending.add(.rescan(path), at: now)
        }
        for path in oldPaths.subtracting(newPaths).sorted(by: { $0.components.count < $1.components.count }) {
            commands.append(.unwatch(tree.removeSubtree(path)))
            if let directory = polled[path], directory.mounted, !directory.listed {
                offline.insert(path)
                if roots.contains(path) { commands.append(.watchDirectory(path)) }
            } else {
                commands.append(.watchTree(path, announce: false))
                pending.add(.rescan(path), at: now)
            }
        }
        refreshPolled(offline: offline, fileSystemKind: fileSystemKind, now: now)
        if !missingRoots.isEmpty { commands.append(.checkRoots(missingRootPaths)) }
        return commands
    }

    // MARK: - What is reported

    /// The figures `docent status` shows.
    public var statistics: WatcherStatistics {
        WatcherStatistics(
            watchedDirectories: tree.count, unwatchedDirectories: Self.first(WatcherStatistics.listedUnwatched, of: unwatched),
            unwatchedCount: unwatched.count,
            overflows: overflows, pending: pending.count + movedOut.count,
            missingRoots: missingRootPaths,
            polled: polled.values.sorted { $0.path.string < $1.path.string })
    }
}
