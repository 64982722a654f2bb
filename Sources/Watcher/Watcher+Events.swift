#if canImport(Glibc)
import Glibc
#endif
import FileAccess
import Foundation
import SystemPackage

extension Watcher {
    /// Turns one inotify event into changes, keeping the watch tree in step.
    func handle(_ event: InotifyEvent, now: ContinuousClock.Instant) {
        if event.has(Inotify.overflow) {
            overflow(now: now)
            return
        }
        if missingRoots.values.contains(event.watch) { checkMissingRoots() }
        guard let directory = tree.pathOf[event.watch] else { return }
        guard !event.name.isEmpty else {
            handleSelf(event, directory: directory)
            return
        }
        guard let name = FilePath.Component(bytes: event.name) else { return }
        if exclusions.isMarker(name) {
            markerEvent(event, in: directory, now: now)
            return
        }
        // A marked directory is watched for its marker alone: what is moved in leaves the
        // index (its move out expires), what is moved out arrives as new.
        if marked.contains(directory) { return }
        if exclusions.excludes(name, in: directory) { return }
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
                watchTree(path, announce: true)  // moved in from outside the roots
            } else {
                pending.add(.changed(path), at: now)
            }
        } else if event.has(Inotify.delete) {
            pending.add(.removed(path), at: now, isDirectory: event.isDirectory)
        } else if event.isDirectory {
            if event.has(Inotify.create) {
                if options.recursive { watchTree(path, announce: true) } else { pending.add(.changed(path), at: now) }
            }
        } else {
            pending.add(.changed(path), at: now)  // create, modify, close-write, attributes
        }
    }

    /// Events on a watched directory itself: it was deleted, moved, unmounted or unwatched.
    private func handleSelf(_ event: InotifyEvent, directory: FilePath) {
        let isRoot = roots.contains(directory)
        if event.has(Inotify.ignored) { tree.remove(event.watch) }
        // An unmount is followed through the mount table, whose change wakes the loop too
        // (a root's directory is still there: it is not lost).
        if event.has(Inotify.unmount), mountInfo >= 0 { return }
        if isRoot, event.has(Inotify.deleteSelf) || event.has(Inotify.moveSelf) || event.has(Inotify.unmount) {
            rootLost(directory)
        }
    }

    /// A rename whose other half never came: moved out of the roots, so removed.
    func expireMoves(now: ContinuousClock.Instant) {
        for (cookie, move) in movedOut where move.at + options.settle <= now {
            movedOut[cookie] = nil
            if move.isDirectory {
                for watch in tree.removeSubtree(move.path) { inotifyDescriptor.removeWatch(watch) }
                marked = marked.filter { !$0.isWithin(move.path) }
            }
            pending.add(.removed(move.path), at: now)
        }
    }

    // MARK: - Markers

    /// A marker (`.noindex`) came or went in `directory`.
    private func markerEvent(_ event: InotifyEvent, in directory: FilePath, now: ContinuousClock.Instant) {
        if event.has(Inotify.create) || event.has(Inotify.movedTo) {
            guard !marked.contains(directory) else { return }
            // Everything under the directory leaves the index and is no longer watched; the
            // directory keeps its own watch, to see the marker go.
            let own = tree.watchOf[directory]
            for watch in tree.removeSubtree(directory) where watch != own { inotifyDescriptor.removeWatch(watch) }
            if let own { tree.add(own, directory) }
            marked = marked.filter { !$0.isWithin(directory) }
            unwatched = unwatched.filter { !$0.isWithin(directory) || $0 == directory }
            marked.insert(directory)
            pending.add(.removed(directory), at: now)
        } else if event.has(Inotify.delete) || event.has(Inotify.movedFrom) {
            guard marked.contains(directory), !exclusions.isMarked(directory) else { return }
            marked.remove(directory)
            watchTree(directory, announce: false)
            pending.add(.rescan(directory), at: now)
        }
    }

    // MARK: - Mounts and polling

    /// The mounts at or under a root.
    func relevantMounts(_ all: [Mount]) -> Set<Mount> {
        Set(all.filter { mount in roots.contains { mount.path.isWithin($0) } })
    }

    /// Which directories are polled: roots on a network or FUSE file system, such file systems
    /// mounted under a root, and `pollPaths`; the `offline` ones (unmounted) kept as such.
    func refreshPolled(offline: Set<FilePath>) {
        var found: [FilePath: PolledDirectory] = [:]
        func describe(_ kind: String, _ path: FilePath) -> String {
            let mount = mounts.filter { path.isWithin($0.path) }.max { $0.path.components.count < $1.path.components.count }
            return mount.map { "\(kind) (\($0.type) from \($0.source))" } ?? kind
        }
        for root in roots where missingRoots[root] == nil {
            if let kind = RemoteFileSystem.kind(of: root) { found[root] = PolledDirectory(path: root, reason: describe(kind, root), mounted: true) }
        }
        for mount in mounts where !roots.contains(mount.path) && !exclusions.excludes(mount.path) && !marked.contains(where: { mount.path.isWithin($0) }) {
            if let kind = RemoteFileSystem.kind(of: mount.path) {
                found[mount.path] = PolledDirectory(path: mount.path, reason: describe(kind, mount.path), mounted: true)
            }
        }
        for path in options.pollPaths where roots.contains(where: { path.isWithin($0) }) {
            found[path] = found[path] ?? PolledDirectory(path: path, reason: "listed in poll.paths", mounted: true)
        }
        for path in offline {
            found[path] = PolledDirectory(path: path, reason: (polled[path]?.reason ?? "a mount") + "; unmounted, its rows are kept until it returns",
                                          mounted: false)
        }
        // A directory under another polled one is covered by it.
        polled = found.filter { entry in !found.keys.contains { $0 != entry.key && entry.key.isWithin($0) } }
        let due = polled.values.contains(where: \.mounted)
        if !due { pollAt = nil } else if pollAt == nil { pollAt = .now + options.pollInterval }
    }

    /// The cheap no-change pass over every mounted polled directory.
    func pollRemote(now: ContinuousClock.Instant) {
        for directory in polled.values where directory.mounted { pending.add(.rescan(directory.path), at: now) }
        pollAt = now + options.pollInterval
    }

    /// The mount table changed: a file system mounted at or under a root is watched and
    /// compared with the index; a network or FUSE one unmounted keeps its rows (it is offline,
    /// and a remount reads nothing again); a local one unmounted is compared again (its rows
    /// follow the directory underneath).
    func mountsChanged(now: ContinuousClock.Instant) {
        guard let all = Mount.current() else { return }
        let new = relevantMounts(all), old = mounts
        let newPaths = Set(new.map(\.path)), oldPaths = Set(old.map(\.path))
        var offline = Set(polled.values.filter { !$0.mounted }.map(\.path))
        mounts = new
        for path in newPaths.subtracting(oldPaths).sorted(by: { $0.components.count < $1.components.count }) {
            offline.remove(path)
            watchTree(path, announce: false)
            pending.add(.rescan(path), at: now)
        }
        for path in oldPaths.subtracting(newPaths) {
            for watch in tree.removeSubtree(path) { inotifyDescriptor.removeWatch(watch) }
            if polled[path]?.mounted == true, polled[path]?.reason != "listed in poll.paths" {
                offline.insert(path)
                if roots.contains(path) { addWatch(path) }
            } else {
                watchTree(path, announce: false)
                pending.add(.rescan(path), at: now)
            }
        }
        refreshPolled(offline: offline)
        if !missingRoots.isEmpty { checkMissingRoots() }
    }

    // MARK: - Overflow and the watch limit

    private func overflow(now: ContinuousClock.Instant) {
        overflows += 1
        if let last = lastOverflow, now - last < .seconds(5) {
            backoff = min(backoff * 2, .seconds(30))
        } else {
            backoff = .milliseconds(100)
        }
        lastOverflow = now
        if resyncAt == nil { resyncAt = now + backoff }
        warn("the inotify queue overflowed (events were lost); rescanning the roots in \(backoff)")
    }

    /// After lost events: every directory watched again (new ones were missed) and every
    /// root compared with the index.
    func resync() {
        resyncAt = nil
        movedOut.removeAll()
        let now = ContinuousClock.now
        for root in roots where missingRoots[root] == nil {
            watchTree(root, announce: false)
            pending.add(.rescan(root), at: now)
        }
    }

    /// Tries again to watch what the limit refused, and rescans what is still unwatched.
    func rescanUnwatched(now: ContinuousClock.Instant) {
        unwatchedRescanAt = nil
        let before = unwatched
        for directory in before.sorted(by: { $0.components.count < $1.components.count }) where unwatched.contains(directory) {
            watchTree(directory, announce: false)
        }
        // The topmost of those directories cover the rest.
        for directory in before where !before.contains(where: { $0 != directory && directory.isWithin($0) }) {
            pending.add(.rescan(directory), at: now)
        }
        if !unwatched.isEmpty { unwatchedRescanAt = now + options.unwatchedRescanInterval }
    }

    // MARK: - Watching trees

    /// Watches `top` and every directory under it — each watched before it is listed, so
    /// nothing created meanwhile is missed — and, when `announce`, files a change for every
    /// file found (a directory created or moved in).
    func watchTree(_ top: FilePath, announce: Bool) {
        let now = ContinuousClock.now
        var stack = [top]
        while let directory = stack.popLast() {
            guard addWatch(directory) else { continue }
            var subdirectories: [FilePath] = [], files: [FilePath] = [], isMarked = false
            try? Directory.forEachEntry(of: directory) { entry in
                if exclusions.isMarker(entry.name) { isMarked = true }
                guard !isMarked, !exclusions.excludes(entry.name, in: directory) else { return }
                let path = directory.appending(entry.name)
                if entry.isDirectory {
                    if options.recursive { subdirectories.append(path) }
                } else if announce {
                    files.append(path)
                }
            }
            // A directory holding a marker keeps its own watch (to see the marker go), no more.
            if isMarked {
                marked.insert(directory)
                continue
            }
            marked.remove(directory)
            stack += subdirectories
            for file in files { pending.add(.changed(file), at: now, isDirectory: false) }
        }
    }

    /// Adds one watch; false when the directory is gone or not a directory.
    @discardableResult
    func addWatch(_ directory: FilePath) -> Bool {
        do {
            if let limit = options.simulatedWatchLimit, tree.count >= limit, tree.watchOf[directory] == nil {
                throw Errno.noSpace
            }
            let watch = try inotifyDescriptor.addWatch(directory)
            tree.add(watch, directory)
            unwatched.remove(directory)
            return true
        } catch .noSpace {
            unwatched.insert(directory)
            if unwatchedRescanAt == nil { unwatchedRescanAt = ContinuousClock.now + options.unwatchedRescanInterval }
            if !warnedAboutLimit {
                warnedAboutLimit = true
                let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                warn("the inotify watch limit is reached (fs.inotify.max_user_watches = \(limit), \(tree.count) watched by Docent): "
                     + "\(directory.string) and directories after it are not watched, only rescanned every "
                     + "\(options.unwatchedRescanInterval). Raise the limit above the number of directories under your roots "
                     + "(`docent status` lists the unwatched ones), for example `sudo sysctl fs.inotify.max_user_watches=524288`, "
                     + "and keep it in /etc/sysctl.d/")
            }
            return true  // still listed: its files are indexed, its subdirectories tried
        } catch {
            return false  // gone (ENOENT), not a directory (ENOTDIR), or not ours to read
        }
    }

    // MARK: - Roots that come and go

    /// A root was deleted, moved away or unmounted: its rows go, and its return is awaited.
    func rootLost(_ root: FilePath) {
        for watch in tree.removeSubtree(root) { inotifyDescriptor.removeWatch(watch) }
        pending.add(.removed(root), at: .now)
        watchAncestor(of: root)
    }

    /// Watches the nearest existing ancestor of `root` for entries created or moved in.
    private func watchAncestor(of root: FilePath) {
        var ancestor = root.removingLastComponent()
        while ancestor.components.count > 0, (try? FileStatus.lstat(ancestor))?.kind != .directory {
            ancestor = ancestor.removingLastComponent()
        }
        let mask = Inotify.create | Inotify.movedTo | Inotify.onlyDirectory | UInt32(IN_MASK_ADD)
        if let watch = try? inotifyDescriptor.addWatch(ancestor, mask: mask) { missingRoots[root] = watch }
    }

    /// Picks up missing roots that exist again, or follows their ancestors down.
    func checkMissingRoots() {
        for (root, watch) in missingRoots {
            missingRoots[root] = nil
            if tree.pathOf[watch] == nil, !missingRoots.values.contains(watch) { inotifyDescriptor.removeWatch(watch) }
            if (try? FileStatus.lstat(root))?.kind == .directory {
                watchTree(root, announce: false)
                pending.add(.rescan(root), at: .now)
            } else {
                watchAncestor(of: root)
            }
        }
    }

    /// Roots that do not exist when watching starts are awaited the same way.
    func awaitMissingRoots() {
        for root in roots where (try? FileStatus.lstat(root))?.kind != .directory { watchAncestor(of: root) }
    }
}

extension FilePath.Component {
    /// A component from raw name bytes (nil for an empty name or one holding "/").
    init?(bytes: [UInt8]) {
        guard !bytes.isEmpty, !bytes.contains(UInt8(ascii: "/")) else { return nil }
        guard let component = (bytes + [0]).withUnsafeBufferPointer({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { FilePath.Component(platformString: $0.baseAddress!) }
        }) else { return nil }
        self = component
    }
}
