import SystemPackage
import Testing
@testable import Watcher

/// The watcher's decisions with events, listings and time passed in: no inotify, no disk,
/// no clock. Each test builds the watch tree a shell would have built, sends the kernel's
/// events, and reads the commands and the settled changes.
@Suite("The watcher's decisions")
struct WatchDecisionsTests {
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    typealias Entry = (name: FilePath.Component, isDirectory: Bool)
    static func entries(_ names: String...) -> [Entry] { entries(names) }

    static func entries(_ names: [String]) -> [Entry] {
        names.map { name in (FilePath.Component(String(name.trimmingSuffix("/")))!, name.hasSuffix("/")) }
    }

    /// Decisions for the root `/r` holding `a/` (watch 2, holding `b/`, watch 3) and `c/` (watch 4), root watch 1.
    func watching(options: WatcherOptions = WatcherOptions(), exclusions: Exclusions = Exclusions(markers: [".noindex"]))
        -> WatchDecisions {
        var d = WatchDecisions(roots: ["/r"], exclusions: exclusions, options: options)
        #expect(d.start() == [.watchTree("/r", announce: false), .checkRoots(["/r"])])
        // The shell walks the tree: each directory watched, listed, and the decisions say what to enter.
        let listings: [(FilePath, Int32, [Entry])] = [("/r", 1, Self.entries("a/", "c/", "x.txt")), ("/r/a", 2, Self.entries("b/", "y.txt")),
                                                       ("/r/a/b", 3, []), ("/r/c", 4, [])]
        for (path, watch, listing) in listings {
            let (enter, commands) = d.listed(path, outcome: .watched(watch), entries: listing, announce: false, now: at(0))
            #expect(commands.isEmpty)
            #expect(Set(enter) == Set(listing.filter(\.isDirectory).map { path.appending($0.name) }))
        }
        #expect(d.missingRoot("/r", isDirectory: true, now: at(0)).isEmpty)
        #expect(d.pending.isEmpty, "nothing announced at start: the crawl compares")
        return d
    }

    func event(_ watch: Int32, _ mask: UInt32, _ name: String = "", cookie: UInt32 = 0) -> InotifyEvent {
        InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: Array(name.utf8))
    }

    func settled(_ d: inout WatchDecisions, at ms: Int = 10_000) -> [FileChange] {
        _ = d.due(now: at(ms))
        return d.pending.takeSettled(at: at(ms))
    }

    @Test("A rename's two halves are paired by cookie: one move, the watch tree renamed with a directory")
    func renamePairs() {
        var d = watching()
        #expect(d.handle(event(1, Inotify.movedFrom, "x.txt", cookie: 7), now: at(1)).isEmpty)
        #expect(d.handle(event(2, Inotify.movedFrom | Inotify.isDirectory, "b", cookie: 8), now: at(2)).isEmpty)
        #expect(d.handle(event(1, Inotify.movedTo, "z.txt", cookie: 7), now: at(3)).isEmpty)
        #expect(d.handle(event(4, Inotify.movedTo | Inotify.isDirectory, "b2", cookie: 8), now: at(4)).isEmpty)
        #expect(d.tree.pathOf[3] == "/r/c/b2" && d.tree.watchOf["/r/a/b"] == nil)
        // An event in the moved directory is filed under its new path.
        #expect(d.handle(event(3, Inotify.closeWrite, "n.txt"), now: at(5)).isEmpty)
        #expect(Set(settled(&d)) == [.moved(from: "/r/x.txt", to: "/r/z.txt"), .moved(from: "/r/a/b", to: "/r/c/b2"), .changed("/r/c/b2/n.txt")])
    }

    @Test("A move whose partner never comes was a move out of the roots: removed once the settle time passes, its watches dropped")
    func moveWithoutPartner() {
        var d = watching()
        _ = d.handle(event(1, Inotify.movedFrom | Inotify.isDirectory, "a", cookie: 9), now: at(0))
        _ = d.handle(event(1, Inotify.movedFrom, "x.txt", cookie: 10), now: at(0))
        #expect(d.statistics.pending == 2, "both halves wait")
        #expect(d.expireMoves(now: at(10)).isEmpty, "not yet: the partner may still come")
        let commands = d.expireMoves(now: at(30))
        #expect(commands.count == 1)
        if case .unwatch(let watches) = commands.first { #expect(Set(watches) == [2, 3]) } else { Issue.record("\(commands)") }
        #expect(d.tree.count == 2)
        #expect(Set(settled(&d)) == [.removed("/r/a"), .removed("/r/x.txt")])
        // The pair's second half arriving after expiry is a file moved in from outside.
        _ = d.handle(event(1, Inotify.movedTo, "x.txt", cookie: 10), now: at(20_000))
        #expect(settled(&d, at: 30_000) == [.changed("/r/x.txt")])
    }

    @Test("A directory moved in from outside is watched and announced; one created is too; a file created is a change",
          arguments: [Inotify.movedTo, Inotify.create])
    func directoryMovedIn(mask: UInt32) {
        var d = watching()
        #expect(d.handle(event(4, mask | Inotify.isDirectory, "new"), now: at(1)) == [.watchTree("/r/c/new", announce: true)])
        // The shell lists it: its files are announced, its subdirectories entered.
        let (enter, _) = d.listed("/r/c/new", outcome: .watched(5), entries: Self.entries("f.txt", "deep/"), announce: true, now: at(2))
        #expect(enter == ["/r/c/new/deep"])
        #expect(d.handle(event(4, mask, "file.txt"), now: at(3)).isEmpty)
        #expect(Set(settled(&d)) == [.changed("/r/c/new/f.txt"), .changed("/r/c/file.txt")])
    }

    @Test("Without recursion a directory created is a change of the root's entry, never entered")
    func notRecursive() {
        var options = WatcherOptions()
        options.recursive = false
        var d = WatchDecisions(roots: ["/r"], exclusions: Exclusions(), options: options)
        let (enter, _) = d.listed("/r", outcome: .watched(1), entries: Self.entries("a/"), announce: false, now: at(0))
        #expect(enter.isEmpty)
        #expect(d.handle(event(1, Inotify.create | Inotify.isDirectory, "d"), now: at(1)).isEmpty)
        #expect(settled(&d) == [.changed("/r/d")])
    }

    @Test("A marker that appears takes its directory out (watches below dropped, its own kept); one that goes brings it back")
    func markers() {
        var d = watching()
        #expect(d.handle(event(2, Inotify.create, ".noindex"), now: at(1)) == [.unwatch([3])])
        #expect(d.tree.watchOf["/r/a"] == 2 && d.tree.watchOf["/r/a/b"] == nil && d.marked == ["/r/a"])
        // What happens inside a marked directory is not indexed.
        #expect(d.handle(event(2, Inotify.closeWrite, "y.txt"), now: at(2)).isEmpty)
        #expect(settled(&d) == [.removed("/r/a")])
        // A second marker appearing changes nothing; one going asks the shell whether another stays.
        #expect(d.handle(event(2, Inotify.create, ".noindex"), now: at(3)).isEmpty)
        #expect(d.handle(event(2, Inotify.delete, ".noindex"), now: at(4)) == [.checkMarkers("/r/a")])
        #expect(d.unmarked("/r/a", now: at(5)) == [.watchTree("/r/a", announce: false)])
        #expect(d.marked.isEmpty)
        #expect(settled(&d, at: 20_000) == [.rescan("/r/a")])
        // A listing that finds a marker marks the directory and enters nothing.
        let (enter, _) = d.listed("/r/c", outcome: .watched(4), entries: Self.entries("sub/", ".noindex"), announce: true, now: at(20_001))
        #expect(enter.isEmpty && d.marked == ["/r/c"])
        #expect(settled(&d, at: 30_000).isEmpty, "nothing in a marked directory is announced")
    }

    @Test("Excluded names are neither reported nor entered")
    func exclusions() {
        var d = watching(exclusions: Exclusions(["*.tmp", "node_modules"]))
        #expect(d.handle(event(1, Inotify.closeWrite, "x.tmp"), now: at(1)).isEmpty)
        #expect(d.handle(event(1, Inotify.create | Inotify.isDirectory, "node_modules"), now: at(1)).isEmpty)
        let (enter, _) = d.listed("/r/c", outcome: .watched(4), entries: Self.entries("node_modules/", "k/", "a.tmp", "b.txt"), announce: true,
                                  now: at(2))
        #expect(enter == ["/r/c/k"])
        #expect(settled(&d) == [.changed("/r/c/b.txt")])
    }

    @Test("An overflow is answered by rewatching and rescanning every root, after a backoff that doubles while overflows repeat")
    func overflow() {
        var d = watching()
        _ = d.handle(event(1, Inotify.movedFrom, "x.txt", cookie: 5), now: at(90))
        let warning = d.handle(InotifyEvent(watch: -1, mask: Inotify.overflow), now: at(0))
        #expect(warning.count == 1 && d.resyncAt == at(100) && d.statistics.overflows == 1)
        #expect(d.due(now: at(100)).contains(.watchTree("/r", announce: false)))
        #expect(d.resyncAt == nil && d.movedOut.isEmpty, "a rename half from before the loss is forgotten")
        #expect(d.pending.takeSettled(at: at(1_000)) == [.rescan("/r")])
        // Again within 5 s: twice the wait; overflows that keep coming: capped at 30 s.
        var ms = 2_000
        _ = d.handle(InotifyEvent(watch: -1, mask: Inotify.overflow), now: at(ms))
        #expect(d.resyncAt == at(2_200))
        for _ in 0..<10 {
            ms += 1_000
            _ = d.handle(InotifyEvent(watch: -1, mask: Inotify.overflow), now: at(ms))
        }
        #expect(d.resyncAt == at(2_200), "one rescan is due already")
        _ = d.due(now: at(ms))
        ms += 1_000
        _ = d.handle(InotifyEvent(watch: -1, mask: Inotify.overflow), now: at(ms))
        #expect(d.resyncAt == at(ms + 30_000))
        // After 5 quiet seconds the backoff starts over.
        _ = d.due(now: at(ms + 30_000))
        _ = d.handle(InotifyEvent(watch: -1, mask: Inotify.overflow), now: at(ms + 40_000))
        #expect(d.resyncAt == at(ms + 40_100))
        #expect(d.statistics.overflows == 14)
    }

    @Test("The watch limit: said once, the directories listed anyway, retried at an interval and the topmost rescanned")
    func watchLimit() {
        var options = WatcherOptions()
        options.unwatchedRescanInterval = .seconds(60)
        var d = WatchDecisions(roots: ["/r"], exclusions: Exclusions(), options: options)
        _ = d.listed("/r", outcome: .watched(1), entries: Self.entries("a/", "b/"), announce: false, now: at(0))
        let (enter, commands) = d.listed("/r/a", outcome: .limitReached, entries: Self.entries("deep/"), announce: false, now: at(1))
        #expect(enter == ["/r/a/deep"] && commands == [.warnWatchLimit("/r/a", watched: 1)])
        #expect(d.listed("/r/a/deep", outcome: .limitReached, entries: [], announce: false, now: at(2)).commands.isEmpty, "said once")
        #expect(d.listed("/r/b", outcome: .limitReached, entries: [], announce: false, now: at(3)).commands.isEmpty)
        #expect(d.statistics.unwatchedDirectories == ["/r/a", "/r/a/deep", "/r/b"])
        #expect(d.unwatchedRescanAt == at(60_001))
        #expect(d.due(now: at(60_000)).isEmpty)
        #expect(d.due(now: at(60_001)) == [.retryUnwatched(["/r/a", "/r/b", "/r/a/deep"])])
        #expect(Set(d.pending.takeSettled(at: at(70_000))) == [.rescan("/r/a"), .rescan("/r/b")])
        // The shell's retry watched /r/b only: the rest waits another interval.
        _ = d.listed("/r/b", outcome: .watched(7), entries: [], announce: false, now: at(60_002))
        d.retried(now: at(60_003))
        #expect(d.statistics.unwatchedDirectories == ["/r/a", "/r/a/deep"] && d.unwatchedRescanAt == at(120_003))
    }

    @Test("Far over the watch limit, statistics list the first hundred unwatched directories by path and count them all")
    func manyUnwatched() {
        var state: UInt64 = 7  // a linear congruential generator: the same paths every run
        let paths = (0..<5_000).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return FilePath("/r/d\((state >> 33) % 1_000_000)")
        }
        let first = WatchDecisions.first(WatcherStatistics.listedUnwatched, of: Set(paths))
        #expect(first == Array(Set(paths).sorted { $0.string < $1.string }.prefix(100)))
        #expect(WatchDecisions.first(100, of: paths.prefix(7)) == paths.prefix(7).sorted { $0.string < $1.string })
        var options = WatcherOptions()
        options.unwatchedRescanInterval = .seconds(60)
        var d = WatchDecisions(roots: ["/r"], exclusions: Exclusions(), options: options)
        let names = (0..<250).map { "d\($0)/" }
        _ = d.listed("/r", outcome: .watched(1), entries: Self.entries(names), announce: false, now: at(0))
        for i in 0..<250 { _ = d.listed(FilePath("/r/d\(i)"), outcome: .limitReached, entries: [], announce: false, now: at(i + 1)) }
        #expect(d.statistics.unwatchedCount == 250)
        #expect(d.statistics.unwatchedDirectories == (0..<250).map { FilePath("/r/d\($0)") }.sorted { $0.string < $1.string }.prefix(100).map { $0 })
    }

    @Test("A root that goes is removed and awaited through an ancestor; an event there looks again; its return is watched and compared")
    func rootComesAndGoes() {
        var d = watching()
        #expect(d.handle(event(1, Inotify.deleteSelf), now: at(1)).last == .awaitRoot("/r"))
        #expect(d.tree.count == 0)
        #expect(settled(&d) == [.removed("/r")])
        d.awaiting("/r", watch: 50)
        #expect(d.statistics.missingRoots == ["/r"])
        #expect(d.handle(event(50, Inotify.create | Inotify.isDirectory, "other"), now: at(20_000)) == [.checkRoots(["/r"])])
        #expect(d.missingRoot("/r", isDirectory: false, now: at(20_001)) == [.unwatch([50]), .awaitRoot("/r")])
        d.awaiting("/r", watch: 50)
        #expect(d.missingRoot("/r", isDirectory: true, now: at(20_002)) == [.unwatch([50]), .watchTree("/r", announce: false)])
        #expect(d.statistics.missingRoots.isEmpty)
        #expect(settled(&d, at: 30_000) == [.rescan("/r")])
    }

    @Test("A root missing at start is awaited; an unmount followed through the mount table is no loss")
    func missingAtStartAndUnmount() {
        var d = WatchDecisions(roots: ["/gone"], exclusions: Exclusions(), options: WatcherOptions())
        #expect(d.missingRoot("/gone", isDirectory: false, now: at(0)) == [.awaitRoot("/gone")])
        var e = watching()
        e.followsMountTable = true
        #expect(e.handle(event(1, Inotify.unmount), now: at(1)).isEmpty && e.tree.count == 4)
        e.followsMountTable = false
        #expect(e.handle(event(1, Inotify.unmount), now: at(1)).last == .awaitRoot("/r"))
    }

    @Test("Mounts: a network root is polled; a FUSE mount under a root is watched and polled; unmounted, kept offline; a local one unmounted is compared")
    func mounts() {
        var options = WatcherOptions()
        options.pollInterval = .seconds(300)
        var d = watching(options: options)
        let kinds: [FilePath: String] = ["/r/c/remote": "FUSE"]
        let local = Mount(path: "/r/a", type: "ext4", source: "/dev/sdb1")
        let remote = Mount(path: "/r/c/remote", type: "fuse.sshfs", source: "host:/x")
        d.setMounts([Mount(path: "/", type: "ext4", source: "/dev/vda"), local], fileSystemKind: { kinds[$0] }, now: at(0))
        #expect(d.statistics.polled.isEmpty && d.pollAt == nil)
        var commands = d.mountsChanged([local, remote], fileSystemKind: { kinds[$0] }, now: at(1))
        #expect(commands == [.watchTree("/r/c/remote", announce: false)])
        #expect(d.statistics.polled == [PolledDirectory(path: "/r/c/remote", reason: "FUSE (fuse.sshfs from host:/x)", mounted: true)])
        #expect(d.pollAt == at(300_001))
        #expect(settled(&d, at: 1_000) == [.rescan("/r/c/remote")])
        _ = d.due(now: at(300_001))
        #expect(d.pending.takeSettled(at: at(301_000)) == [.rescan("/r/c/remote")], "polled at the interval")
        // Unmounted: offline, rows kept, nothing compared, no more polls.
        _ = d.listed("/r/c/remote", outcome: .watched(9), entries: [], announce: false, now: at(301_001))
        commands = d.mountsChanged([local], fileSystemKind: { kinds[$0] }, now: at(301_002))
        #expect(commands == [.unwatch([9])])
        #expect(d.statistics.polled.map(\.mounted) == [false] && d.pollAt == nil)
        #expect(d.statistics.polled.first?.reason == "FUSE (fuse.sshfs from host:/x); unmounted, its rows are kept until it returns")
        _ = d.mountsChanged([local], fileSystemKind: { kinds[$0] }, now: at(301_003))
        #expect(d.statistics.polled.first?.reason.components(separatedBy: "unmounted").count == 2, "said once")
        // A local mount unmounted: the directory underneath is watched and compared.
        commands = d.mountsChanged([], fileSystemKind: { kinds[$0] }, now: at(301_004))
        #expect(commands.contains(.watchTree("/r/a", announce: false)))
        #expect(d.pending.takeSettled(at: at(310_000)) == [.rescan("/r/a")])
    }

    @Test("Directories listed in poll.paths are polled whatever their file system, and an unmount there is compared, not kept")
    func pollPaths() {
        var options = WatcherOptions()
        options.pollPaths = ["/r/c", "/elsewhere"]
        var d = watching(options: options)
        d.setMounts([Mount(path: "/r/c", type: "ext4", source: "/dev/sdc")], fileSystemKind: { _ in nil }, now: at(0))
        #expect(d.statistics.polled.map(\.path) == ["/r/c"] && d.statistics.polled.first?.listed == true)
        #expect(d.mountsChanged([], fileSystemKind: { _ in nil }, now: at(1)).contains(.watchTree("/r/c", announce: false)))
        #expect(d.statistics.polled.map(\.mounted) == [true])
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
