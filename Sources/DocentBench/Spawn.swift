import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One finished process: how it ended, how long it took, and how much memory it used.
struct SpawnResult {
    var status: Int32
    var seconds: Double
    /// The largest resident set of the process or any descendant: the high-water marks
    /// (`VmHWM`) the sampler read when memory was sampled, wait4's otherwise. wait4's alone is
    /// wrong for a spawned program: posix_spawn starts the child in this process's address
    /// space (vfork), and exec records that space's size as the child's own peak — the
    /// benchmark's ~330 MB, not the indexer's.
    var maxRSSMB: Double
    /// The highest sum of proportional set sizes over the process and its descendants, sampled
    /// every 100 ms (nil when not sampled): what the whole tree cost the machine at its peak.
    var peakTreePSSMB: Double?
}

/// Runs programs with posix_spawn and wait4, so a benchmark gets each run's resource usage.
enum Spawn {
    /// Runs `arguments` (the program is looked up in PATH) with `environment`, its output to
    /// `stdoutPath` (or /dev/null), stderr to /dev/null; `sampleMemory` samples the process
    /// tree's memory while it runs.
    static func run(_ arguments: [String], environment: [String: String]? = nil, stdoutPath: String? = nil,
                    sampleMemory: Bool = false) throws -> SpawnResult {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let rc = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw BenchError("cannot run \(arguments[0]): \(String(cString: strerror(rc)))") }
        let sampler = sampleMemory ? TreeMemorySampler(root: pid) : nil
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = (ContinuousClock.now - start).seconds
        let peak = sampler?.stop()
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let largest = sampler.map { Double($0.largestProcessKB) / 1024 } ?? Double(usage.ru_maxrss) / 1024
        return SpawnResult(status: exit, seconds: seconds, maxRSSMB: largest, peakTreePSSMB: peak)
    }

    /// Runs `arguments` and returns what it wrote to standard output.
    static func capture(_ arguments: [String], environment: [String: String]?) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("docent-bench-out-\(getpid())").path
        defer { unlink(output) }
        _ = try run(arguments, environment: environment, stdoutPath: output)
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Runs `command` with /bin/sh -c; its wall time.
    static func shell(_ command: String) throws -> Double {
        let result = try run(["/bin/sh", "-c", command])
        guard result.status == 0 else { throw BenchError("`\(command)` exited with \(result.status)") }
        return result.seconds
    }
}

/// Samples the summed PSS of a process and its descendants on a thread, every 100 ms.
final class TreeMemorySampler: Sendable {
    private let peakKB = Atomic<Int>(0)
    private let largestKB = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(root: pid_t) {
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                let pids = Self.tree(root)
                let total = pids.reduce(0) { $0 + Self.pssKB($1) }
                if total > peakKB.load(ordering: .relaxed) { peakKB.store(total, ordering: .relaxed) }
                let largest = pids.map(Self.highWaterKB).max() ?? 0
                if largest > largestKB.load(ordering: .relaxed) { largestKB.store(largest, ordering: .relaxed) }
                usleep(100_000)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops sampling; the peak in MB.
    func stop() -> Double {
        running.store(false, ordering: .relaxed)
        finished.wait()
        return Double(peakKB.load(ordering: .relaxed)) / 1024
    }

    /// The largest `VmHWM` seen, in KB (after `stop()`).
    var largestProcessKB: Int { largestKB.load(ordering: .relaxed) }


    /// `root` and every descendant, from /proc/PID/task/TID/children.
    static func tree(_ root: pid_t) -> [pid_t] {
        var found: [pid_t] = [], queue = [root]
        while let pid = queue.popLast() {
            found.append(pid)
            for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
                guard let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8) else { continue }
                queue += children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
        }
        return found
    }

    /// The process's proportional set size in KB (0 once it is gone).
    static func pssKB(_ pid: pid_t) -> Int { kilobytes("/proc/\(pid)/smaps_rollup", "Pss:") }

    /// The process's peak resident set since it last ran exec (`VmHWM`), in KB (0 once gone).
    static func highWaterKB(_ pid: pid_t) -> Int { kilobytes("/proc/\(pid)/status", "VmHWM:") }

    /// The number after `key` on its line of the /proc file at `path` (kB there), 0 when none.
    private static func kilobytes(_ path: String, _ key: String) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
