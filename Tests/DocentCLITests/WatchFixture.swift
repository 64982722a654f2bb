import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A root in a temporary directory, an index and a cache beside it, and a `docent watch`
/// process to start, query and stop. Conditions are awaited with a deadline, never slept on.
class WatchFixture {
    let dir: TemporaryDirectory
    var root: String { dir.path + "/root" }
    var env: [String: String] {
        ["XDG_DATA_HOME": dir.path + "/data", "XDG_CACHE_HOME": dir.path + "/cache"].merging(storeEnvironment) { $1 }
    }
    /// What makes `docent` use the store under test (`use(_:)`); empty for the default file.
    var storeEnvironment: [String: String] = [:]
    var watcher: Process?
    var logPath: String { dir.path + "/watch.log" }

    init() throws {
        dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Keeps this test's index in `store` (PostgreSQL: a database of its own).
    func use(_ store: TestStore) throws {
        storeEnvironment = try store.environment([:], directory: dir.path)
    }

    deinit {
        if let watcher { kill(watcher.processIdentifier, SIGKILL) }
    }

    func start(_ extraEnvironment: [String: String] = [:], arguments: [String]? = nil) throws {
        let process = Process()
        process.executableURL = Docent.binary
        // Ordinary priority: an idle-class watcher yields to the suite's own parallel
        // processes and misses deadlines on a busy machine. (WatchTests checks the default.)
        var arguments = arguments ?? ["watch", root, "--verbose"]
        if arguments.first == "watch", !arguments.contains("--priority") { arguments += ["--priority", "normal"] }
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }.merging(extraEnvironment) { $1 }
            .merging(["DOCENT_CONFIG_DIR": env["DOCENT_CONFIG_DIR"] ?? "/nonexistent/docent-test-config"]) { $1 }
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try log.seekToEnd()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        watcher = process
    }

    func status() throws -> [String: Any] {
        try Docent.run(["status", "--json"], environment: env).jsonLines.first ?? [:]
    }

    /// Every path in the index under the root.
    func indexed() throws -> Set<String> {
        let r = try Docent.run(["search", "in:" + root, "--files", "--limit", "1000000"], environment: env)
        return Set(r.stdout.split(separator: "\n").map(String.init))
    }

    /// Every non-directory under the root, leaving out the default exclusions the test uses.
    func onDisk() -> Set<String> {
        var out: Set<String> = []
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            if relative.split(separator: "/").contains(".git") { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                out.insert(root + "/" + relative)
            }
        }
        return out
    }

    /// Waits until `condition` holds, up to `seconds`; false if it never did.
    func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds * deadlineFactor)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// The watcher has settled and the index holds exactly the files on disk.
    func settledAndEqual(_ seconds: Double = 30) throws -> Bool {
        let settled = try eventually(seconds) {
            try status()["state"] as? String == "watching" && indexed() == onDisk()
        }
        if !settled {  // say what differs, for whoever reads the failure
            let (index, disk) = (try indexed(), onDisk())
            print("not settled: state \(try status()["state"] ?? "?"), pending \(try status()["pending"] ?? "?"); "
                  + "only indexed \(index.subtracting(disk).sorted().prefix(5)), only on disk \(disk.subtracting(index).sorted().prefix(5))\n\(log)")
            // Seen in CI: "indexing" with nothing pending for 30 s after the last change was
            // applied. Where the watcher's threads stand then, for whoever reads the failure.
            if let watcher, FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"),
               let dump = try? runTool("/usr/bin/timeout", ["20", "/usr/bin/gdb", "-p", String(watcher.processIdentifier), "-batch",
                                                             "-ex", "thread apply all bt 16"]) {
                print(String(decoding: dump.output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread") }
                    .joined(separator: "\n"))
            }
        }
        return settled
    }

    func write(_ relative: String, _ text: String) throws {
        _ = try dir.write("root/" + relative, text)
    }

    func search(_ word: String) throws -> [String] {
        let r = try Docent.run(["search", word, "--files", "--limit", "1000"], environment: env)
        return r.stdout.split(separator: "\n").map { String($0.dropFirst(root.count + 1)) }.sorted()
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func stop() throws -> Int32 {
        guard let watcher else { return -1 }
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        self.watcher = nil
        return watcher.terminationStatus
    }
}

/// The processes whose parent is `pid` (whichever of its threads started them).
func childProcesses(of pid: Int32) -> [Int32] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
        guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: state, then the parent's pid (proc(5)).
        return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first == Substring(String(pid)) ? child : nil
    }
}

/// Every thread of `pid` and of its child processes ("pid/tid name": Docent names its own
/// threads; one of libdispatch's pool would keep the process's name), each with how often
/// it has run (voluntary and involuntary context switches): a thread that woke up, however
/// briefly, counts one more; one that started or ended is a new or missing key. Unlike CPU
/// time, which the kernel samples at its clock tick, this misses no wakeup.
func wakeups(_ pid: Int32) -> [String: Int] {
    let processes = [pid] + childProcesses(of: pid)
    var threads: [String: Int] = [:]
    for process in processes {
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? [] {
            guard let status = try? String(contentsOfFile: "/proc/\(process)/task/\(task)/status", encoding: .utf8) else { continue }
            let name = status.split(separator: "\n").first { $0.hasPrefix("Name:") }?.dropFirst(5).trimmingCharacters(in: .whitespaces) ?? "?"
            threads["\(process)/\(task) \(name)"] = status.split(separator: "\n")
                .filter { $0.hasPrefix("voluntary_ctxt_switches") || $0.hasPrefix("nonvoluntary_ctxt_switches") }
                .compactMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
        }
    }
    return threads
}

/// Waits (up to `seconds`) until no thread of `pid` or its children woke for half a second;
/// the last snapshot.
func quietWakeups(_ pid: Int32, seconds: Double = 15) -> [String: Int] {
    var quiet = wakeups(pid)
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        usleep(500_000)
        let now = wakeups(pid)
        if now == quiet { break }
        quiet = now
    }
    return quiet
}

/// The threads that woke between two snapshots, with how many times.
func woke(_ before: [String: Int], _ after: [String: Int]) -> [String: Int] {
    var changed: [String: Int] = [:]
    for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
        changed[key] = (after[key] ?? 0) - (before[key] ?? 0)
    }
    return changed
}
