#if canImport(Glibc)
import Glibc
#endif
import FileAccess
import Foundation
import SystemPackage

extension Watcher {
    /// Carries out the decisions' commands on inotify and the disk, feeding what they find
    /// (watches, listings, roots back) to the decisions in turn.
    func apply(_ commands: [WatchCommand]) {
        for command in commands {
            switch command {
            case .watchTree(let top, let announce):
                watchTree(top, announce: announce)
            case .watchDirectory(let directory):
                let outcome = addWatch(directory)
                if outcome != .failed { apply(decisions.listed(directory, outcome: outcome, entries: [], announce: false, now: .now).commands) }
            case .retryUnwatched(let directories):
                for directory in directories where decisions.isUnwatched(directory) { watchTree(directory, announce: false) }
                decisions.retried(now: .now)
            case .unwatch(let watches):
                for watch in watches { inotifyDescriptor.removeWatch(watch) }
            case .awaitRoot(let root):
                awaitRoot(root)
            case .checkRoots(let roots):
                for root in roots {
                    let isDirectory = (try? FileStatus.lstat(root))?.kind == .directory
                    apply(decisions.missingRoot(root, isDirectory: isDirectory, now: .now))
                }
            case .checkMarkers(let directory):
                if !exclusions.isMarked(directory) { apply(decisions.unmarked(directory, now: .now)) }
            case .warn(let message):
                warn(message)
            case .warnWatchLimit(let directory, let watched):
                let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                warn("the inotify watch limit is reached (fs.inotify.max_user_watches = \(limit), \(watched) watched by Docent): "
                     + "\(directory.string) and directories after it are not watched, only rescanned every "
                     + "\(options.unwatchedRescanInterval). Raise the limit above the number of directories under your roots "
                     + "(`docent status` lists the unwatched ones), for example `sudo sysctl fs.inotify.max_user_watches=524288`, "
                     + "and keep it in /etc/sysctl.d/")
            }
        }
    }

    /// Watches `top` and every directory under it that the decisions enter, each watched
    /// before it is listed, so nothing created meanwhile is missed.
    private func watchTree(_ top: FilePath, announce: Bool) {
        var stack = [top]
        while let directory = stack.popLast() {
            let outcome = addWatch(directory)
            var entries: [(name: FilePath.Component, isDirectory: Bool)] = []
            if outcome != .failed {
                try? Directory.forEachEntry(of: directory) { entries.append(($0.name, $0.isDirectory)) }
            }
            let (enter, commands) = decisions.listed(directory, outcome: outcome, entries: entries, announce: announce, now: .now)
            stack += enter
            apply(commands)
        }
    }

    /// Adds one watch.
    private func addWatch(_ directory: FilePath) -> WatchOutcome {
        do {
            if let limit = options.simulatedWatchLimit, decisions.tree.count >= limit, decisions.tree.watchOf[directory] == nil {
                throw Errno.noSpace
            }
            return .watched(try inotifyDescriptor.addWatch(directory))
        } catch .noSpace {
            return .limitReached  // still listed: its files are indexed, its subdirectories tried
        } catch {
            return .failed  // gone (ENOENT), not a directory (ENOTDIR), or not ours to read
        }
    }

    /// Watches the nearest existing ancestor of the missing `root` for entries created or moved in.
    private func awaitRoot(_ root: FilePath) {
        var ancestor = root.removingLastComponent()
        while ancestor.components.count > 0, (try? FileStatus.lstat(ancestor))?.kind != .directory {
            ancestor = ancestor.removingLastComponent()
        }
        let mask = Inotify.create | Inotify.movedTo | Inotify.onlyDirectory | UInt32(IN_MASK_ADD)
        if let watch = try? inotifyDescriptor.addWatch(ancestor, mask: mask) { decisions.awaiting(root, watch: watch) }
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
