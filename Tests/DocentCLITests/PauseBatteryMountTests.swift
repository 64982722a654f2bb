import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system, in clock ticks) of a process and its live children.
private func cpuTicks(_ pid: Int32) -> Int {
    func own(_ pid: String) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3; utime and stime are fields 14 and 15.
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
    let children = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "")
        .split(separator: " ").map(String.init)
    return own(String(pid)) + children.map(own).reduce(0, +)
}

@Suite("docent pause and resume; battery; network and FUSE mounts")
struct PauseBatteryMountTests {
    @Test("pause stops all work (no CPU over 10 s while files change); resume catches up with nothing lost")
    func pauseAndResume() throws {
        let fixture = try WatchFixture()
        for i in 0..<30 { try fixture.write("docs/before\(i).txt", "compass \(i)") }
        try fixture.start()
        #expect(try fixture.settledAndEqual())
        let pid = try #require(fixture.watcher?.processIdentifier)

        let paused = try Docent.run(["pause"], environment: fixture.env)
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(paused.stdout.contains("stopped its work"), "\(paused.stdout)")
        #expect(try fixture.status()["state"] as? String == "paused")
        #expect((try fixture.status()["paused"] as? String)?.contains("docent pause") == true)

        // Ten seconds of changes: new files, edits, a removal, a rename, every 100 ms.
        // The pause's own last steps (its status write, its log line) done: quiet for half a second.
        let sleeping = quietWakeups(pid)
        let before = cpuTicks(pid)
        let start = Date()
        var i = 0
        while Date().timeIntervalSince(start) < 10 {
            try fixture.write("docs/during\(i).txt", "compass during \(i)")
            try fixture.write("docs/before\(i % 30).txt", "compass edited \(i)")
            i += 1
            usleep(100_000)
        }
        try FileManager.default.removeItem(atPath: fixture.root + "/docs/before29.txt")
        try FileManager.default.moveItem(atPath: fixture.root + "/docs/before28.txt", toPath: fixture.root + "/docs/renamed.txt")
        usleep(500_000)  // a bounded observation is the test: the last changes' events had time to wake it, and did not
        let used = cpuTicks(pid) - before
        #expect(used == 0, "the paused watcher used \(used) clock ticks of CPU while \(i) files changed")
        // Not one thread woke: no timer, no poll (libdispatch's once-a-second pool monitor was one).
        #expect(woke(sleeping, wakeups(pid)).isEmpty, "threads that woke while paused: \(woke(sleeping, wakeups(pid)))")
        #expect(try fixture.search("during").isEmpty, "nothing was indexed while paused")

        let resumed = try Docent.run(["resume"], environment: fixture.env)
        #expect(resumed.status == 0 && resumed.stdout.contains("resumed"), "\(resumed.stdout)\(resumed.stderr)")
        #expect(try fixture.settledAndEqual(), "\(fixture.log)")
        #expect(try fixture.search("during").count == i)
        #expect(try fixture.search("edited").count == 29)  // 30 edited, one removed; renamed.txt keeps its text

        // A pause for a while ends by itself; the request outlives a restart of the watcher.
        #expect(try Docent.run(["pause", "--for", "2s"], environment: fixture.env).status == 0)
        #expect(try fixture.status()["state"] as? String == "paused")
        try fixture.write("docs/later.txt", "compass later")
        #expect(try fixture.eventually(15) { try fixture.search("later") == ["docs/later.txt"] }, "\(fixture.log)")
        #expect(try fixture.stop() == 0)
        #expect(try Docent.run(["pause"], environment: fixture.env).stdout.contains("no docent watch runs"))
        try fixture.write("docs/offline.txt", "compass offline")
        try fixture.start()
        #expect(try fixture.eventually { try fixture.status()["state"] as? String == "paused" })
        #expect(try fixture.search("offline").isEmpty)
        #expect(try Docent.run(["resume"], environment: fixture.env).status == 0)
        #expect(try fixture.settledAndEqual())
        #expect(try fixture.stop() == 0)
        #expect(try Docent.run(["pause", "--for", "soon"], environment: fixture.env).status == 2)
    }

    @Test("on battery the first reconcile waits for mains power while single changes are applied")
    func battery() throws {
        let fixture = try WatchFixture()
        for i in 0..<20 { try fixture.write("docs/file\(i).txt", "meridian \(i)") }
        let power = fixture.dir.path + "/power"
        _ = try fixture.dir.write("power/BAT0/type", "Battery\n")
        _ = try fixture.dir.write("power/BAT0/status", "Discharging\n")
        _ = try fixture.dir.write("power/AC/type", "Mains\n")
        _ = try fixture.dir.write("power/AC/online", "0\n")
        try fixture.start(["DOCENT_POWER_SUPPLY_DIR": power])
        #expect(try fixture.eventually { try fixture.status()["state"] as? String == "deferred" }, "\(fixture.log)")
        #expect((try fixture.status()["deferred"] as? String)?.contains("battery") == true)
        try fixture.write("docs/live.txt", "meridian live")
        #expect(try fixture.eventually { try fixture.search("meridian") == ["docs/live.txt"] }, "a single change is applied on battery")
        // A bounded observation is the test: on battery the reconcile does not run, which only a
        // span can show; the state stays "deferred" throughout it.
        usleep(1_000_000)
        #expect(try fixture.status()["state"] as? String == "deferred")
        #expect(try fixture.search("meridian") == ["docs/live.txt"], "the reconcile waited")

        // Plugged in: the reconcile runs.
        try "1\n".write(toFile: power + "/AC/online", atomically: false, encoding: .utf8)
        #expect(try fixture.settledAndEqual(), "\(fixture.log)")
        #expect(try fixture.status()["deferred"] == nil)
        #expect(try fixture.stop() == 0)
    }

    /// Whether FUSE file systems can be mounted here (bindfs, /dev/fuse, the right to mount).
    static let fuse: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bindfs"), access("/dev/fuse", R_OK | W_OK) == 0,
              let dir = try? TemporaryDirectory() else { return false }
        try? FileManager.default.createDirectory(atPath: dir.path + "/a", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: dir.path + "/b", withIntermediateDirectories: true)
        guard shell(["/usr/bin/bindfs", dir.path + "/a", dir.path + "/b"]) == 0 else { return false }
        _ = shell(["/bin/fusermount", "-u", dir.path + "/b"])
        return true
    }()

    @discardableResult
    static func shell(_ argv: [String]) -> Int32 {
        guard let pid = try? IsolatedProcess.start(argv, output: "/dev/null") else { return -1 }
        return IsolatedProcess.wait(pid)
    }

    @Test("a root that is itself a FUSE mount is polled, and keeps its rows while unmounted",
          .enabled(if: fuse, "bindfs cannot mount FUSE file systems here"))
    func fuseRootIsPolled() throws {
        let fixture = try WatchFixture()
        let source = fixture.dir.path + "/server"
        for i in 0..<5 { _ = try fixture.dir.write("server/doc\(i).txt", "nebula \(i)") }
        #expect(Self.shell(["/usr/bin/bindfs", source, fixture.root]) == 0)
        defer { Self.shell(["/bin/fusermount", "-u", "-z", fixture.root]) }
        try FileManager.default.createDirectory(atPath: fixture.dir.path + "/config", withIntermediateDirectories: true)
        try "poll:\n  interval: 1\n".write(toFile: fixture.dir.path + "/config/config.yaml", atomically: true, encoding: .utf8)
        fixture.storeEnvironment["DOCENT_CONFIG_DIR"] = fixture.dir.path + "/config"
        try fixture.start()
        #expect(try fixture.eventually { try fixture.status()["state"] as? String == "watching" && fixture.indexed().count == 5 })
        let polled = try #require(try fixture.status()["polled"] as? [[String: Any]])
        #expect(polled.first?["path"] as? String == fixture.root && (polled.first?["reason"] as? String)?.contains("FUSE") == true, "\(polled)")
        _ = try fixture.dir.write("server/doc9.txt", "nebula behind inotify's back")
        #expect(try fixture.eventually(10) { try fixture.indexed().count == 6 }, "\(fixture.log)")
        #expect(Self.shell(["/bin/fusermount", "-u", fixture.root]) == 0)
        #expect(try fixture.eventually { (try fixture.status()["polled"] as? [[String: Any]])?.first?["mounted"] as? Bool == false }, "\(fixture.log)")
        usleep(1_500_000)  // a bounded observation is the test: longer than the poll interval, and no row went
        #expect(try fixture.indexed().count == 6, "rows kept while the root is unmounted")
        #expect(Self.shell(["/usr/bin/bindfs", source, fixture.root]) == 0)
        _ = try fixture.dir.write("server/doc10.txt", "nebula after the remount")
        #expect(try fixture.eventually(10) { try fixture.indexed().count == 7 }, "\(fixture.log)")
        #expect(try fixture.stop() == 0)
    }

    @Test("a FUSE mount under a root is polled: changes behind inotify's back are found; unmounted, rows stay; remounted, nothing is read again",
          .enabled(if: fuse, "bindfs cannot mount FUSE file systems here"))
    func fuseMountIsPolled() throws {
        let fixture = try WatchFixture()
        let source = fixture.dir.path + "/server"
        let share = fixture.root + "/share"
        try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
        for i in 0..<10 { _ = try fixture.dir.write("server/doc\(i).txt", "quasar remote \(i)") }
        try fixture.write("local.txt", "quasar local")
        #expect(Self.shell(["/usr/bin/bindfs", source, share]) == 0)
        defer { Self.shell(["/bin/fusermount", "-u", "-z", share]) }
        try FileManager.default.createDirectory(atPath: fixture.dir.path + "/config", withIntermediateDirectories: true)
        try "poll:\n  interval: 2\n".write(toFile: fixture.dir.path + "/config/config.yaml", atomically: true, encoding: .utf8)
        fixture.storeEnvironment["DOCENT_CONFIG_DIR"] = fixture.dir.path + "/config"
        try fixture.start()
        // (Foundation's directory enumerator does not cross into the mount: the test counts rows.)
        #expect(try fixture.eventually { try fixture.status()["state"] as? String == "watching" && fixture.indexed().count == 11 })
        #expect(try fixture.search("quasar").count == 11)
        let polled = try #require(try fixture.status()["polled"] as? [[String: Any]])
        #expect(polled.count == 1 && polled.first?["path"] as? String == share, "\(polled)")
        #expect((polled.first?["reason"] as? String)?.contains("FUSE") == true, "\(polled)")
        let text = try Docent.run(["status"], environment: fixture.env).stdout
        #expect(text.contains("compared with the index every 2 s") && text.contains(share), "\(text)")

        // Written on the "server": inotify on the mount sees nothing; the poll finds it.
        _ = try fixture.dir.write("server/new.txt", "quasar arrived behind inotify's back")
        try FileManager.default.removeItem(atPath: source + "/doc0.txt")
        let started = Date()
        #expect(try fixture.eventually(10) { try fixture.search("quasar").contains("share/new.txt") && !fixture.search("quasar").contains("share/doc0.txt") },
                "\(fixture.log)")
        #expect(Date().timeIntervalSince(started) < 2 + 3 * deadlineFactor, "picked up within the interval")

        // Unmounted: the share's rows stay, and it is listed as unmounted.
        #expect(Self.shell(["/bin/fusermount", "-u", share]) == 0)
        #expect(try fixture.eventually { (try fixture.status()["polled"] as? [[String: Any]])?.first?["mounted"] as? Bool == false })
        usleep(2_500_000)  // a bounded observation is the test: a poll interval passes, nothing is polled, nothing removed
        #expect(try fixture.search("quasar").count == 11, "rows kept while unmounted")

        // Mounted again (another FUSE mount first, so the device number changes): nothing read again.
        let other = fixture.dir.path + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        #expect(Self.shell(["/usr/bin/bindfs", source, other]) == 0)
        defer { Self.shell(["/bin/fusermount", "-u", "-z", other]) }
        let logBefore = fixture.log.count
        #expect(Self.shell(["/usr/bin/bindfs", source, share]) == 0)
        #expect(try fixture.eventually { (try fixture.status()["polled"] as? [[String: Any]])?.first?["mounted"] as? Bool == true })
        #expect(try fixture.eventually { try fixture.status()["state"] as? String == "watching" && fixture.indexed().count == 11 })
        usleep(2_500_000)  // a bounded observation is the test: a poll after the remount passes, and reads nothing again
        let after = String(fixture.log.dropFirst(logBefore))
        #expect(after.contains("applied"), "\(after)")
        #expect(after.range(of: #"[1-9][0-9]* read"#, options: .regularExpression) == nil, "a remount read files again: \(after)")
        #expect(try fixture.stop() == 0)
    }
}
