import ArgumentParser
import Engine
import Foundation
import Index
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench live`: `docent watch` on the corpus — start-up, idle cost, memory, and how
/// soon an edit is searchable and its cached preview refreshed.
struct LiveBench: ParsableCommand, BenchOutput {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "docent watch on the corpus: start-up, idle CPU and wake-ups, memory, write-to-searchable and write-to-preview latency."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "Edits to time (each is one file rewritten with a new word).")
    var edits = 200

    @Option(help: "Seconds to watch the watcher while nothing changes.")
    var idleSeconds = 10.0

    @Option(help: "Edits also timed with whole `docent search` processes polling (slower: each process is one poll).")
    var processEdits = 20

    @Option(help: "Keep the index and cache here (reused by the next run: start-up is then a no-change reconcile).")
    var work: String?

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    func run() throws {
        let figures = try measure()
        if json, let data = try? JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]) {
            print(String(decoding: data, as: UTF8.self))
        } else {
            for key in figures.keys.sorted() { print("\(key.padding(toLength: 28, withPad: " ", startingAt: 0)) \(fmt(figures[key]!))") }
        }
    }

    /// Runs the watcher and the edits; the figures by name (seconds, percent, MB, ms).
    func measure() throws -> [String: Double] {
        guard FileManager.default.fileExists(atPath: corpus) else { throw ValidationError("no corpus at \(corpus); see Benchmarks/make-corpus.sh") }
        let work = self.work ?? FileManager.default.temporaryDirectory.appendingPathComponent("docent-live-\(getpid())").path
        let scratch = work + "/edits"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if self.work == nil { try? FileManager.default.removeItem(atPath: work) } }
        let docent = DocentProcess(work: work)
        var figures: [String: Double] = [:]

        // Start-up: the first reconcile (a cold index unless --work holds one), then a restart on the unchanged tree.
        var watcher = try docent.startWatch([corpus, scratch])
        figures["startSeconds"] = try docent.waitUntilWatching(watcher)
        guard let status = docent.status() else { throw ValidationError("no status from docent watch") }
        log("watching \(status.files) files in \(status.watchedDirectories) directories; first start \(fmt(figures["startSeconds"]!)) s")
        try docent.stop(watcher)
        watcher = try docent.startWatch([corpus, scratch])
        figures["restartSeconds"] = try docent.waitUntilWatching(watcher)
        log("restart on the unchanged tree: \(fmt(figures["restartSeconds"]!)) s")
        figures["files"] = Double(status.files)
        figures["directories"] = Double(status.watchedDirectories)

        // Idle: CPU time and wake-ups of every thread while nothing changes.
        let before = ProcStat(pid: watcher.processIdentifier)
        usleep(useconds_t(idleSeconds * 1_000_000))
        let after = ProcStat(pid: watcher.processIdentifier)
        figures["idleCPUPercent"] = (after.cpuSeconds - before.cpuSeconds) / idleSeconds * 100
        figures["idleWakeupsPerSecond"] = Double(after.contextSwitches - before.contextSwitches) / idleSeconds
        figures["rssMB"] = after.rssMB
        figures["peakRSSMB"] = after.peakRSSMB
        log("idle \(fmt(idleSeconds)) s: CPU \(fmt(figures["idleCPUPercent"]!))%, \(fmt(figures["idleWakeupsPerSecond"]!)) wake-ups/s; RSS \(fmt(after.rssMB)) MB (peak \(fmt(after.peakRSSMB)) MB)")

        // Edits: ten files, each previewed once so it has a cache entry the watcher must refresh.
        let files = (0..<10).map { scratch + "/note-\($0).txt" }
        for file in files {
            try "a note to start with\n".write(toFile: file, atomically: false, encoding: .utf8)
            try docent.run(["preview", file])
        }
        _ = try docent.waitUntilWatching(watcher)
        let index = try FileIndex(path: docent.indexPath)
        let cache = PreviewCache(directory: PreviewCache.defaultDirectory(environment: docent.environment))
        var searchable: [Double] = [], previewed: [Double] = []
        for edit in 0..<edits {
            let file = files[edit % files.count], word = "zqlive\(edit)x\(getpid())"
            let (s, p) = try timeEdit(file: file, word: word, index: index, cache: cache)
            searchable.append(s)
            previewed.append(p)
            usleep(10_000)  // the next edit starts from a quiet watcher
        }
        figures["searchableP50ms"] = percentile(searchable, 50) * 1000
        figures["searchableP99ms"] = percentile(searchable, 99) * 1000
        figures["previewP50ms"] = percentile(previewed, 50) * 1000
        figures["previewP99ms"] = percentile(previewed, 99) * 1000
        log("write → searchable (\(edits) edits, polled every 1 ms): p50 \(fmt(figures["searchableP50ms"]!)) ms, p99 \(fmt(figures["searchableP99ms"]!)) ms, max \(fmt(searchable.max()! * 1000)) ms")
        log("write → cached preview refreshed: p50 \(fmt(figures["previewP50ms"]!)) ms, p99 \(fmt(figures["previewP99ms"]!)) ms")

        // The same with whole `docent search` processes as the poller: each poll is a process.
        var byProcess: [Double] = []
        for edit in 0..<processEdits {
            let file = files[edit % files.count], word = "zqproc\(edit)x\(getpid())"
            let start = ContinuousClock.now
            try "edited for the process poll: \(word)\n".write(toFile: file, atomically: false, encoding: .utf8)
            while try docent.run(["search", word, "--files"]) != 0 {}
            byProcess.append((ContinuousClock.now - start).seconds)
        }
        if !byProcess.isEmpty {
            figures["searchableByProcessP50ms"] = percentile(byProcess, 50) * 1000
            log("write → found by a `docent search` process (\(processEdits) edits, until the first process that finds it exits): p50 \(fmt(figures["searchableByProcessP50ms"]!)) ms")
        }
        let end = ProcStat(pid: watcher.processIdentifier)
        figures["peakRSSMBAfterEdits"] = end.peakRSSMB
        try docent.stop(watcher)
        return figures
    }

    /// Rewrites `file` with `word` in it; how long until a search finds it, and until its cached preview shows it.
    private func timeEdit(file: String, word: String, index: FileIndex, cache: PreviewCache) throws -> (Double, Double) {
        let request = SearchRequest(match: try SearchQuery.parse(word).match, limit: 1)
        let entry = cache.entryPath(for: FilePath(file)).string
        let start = ContinuousClock.now
        try "edited: \(word) and a few more words\n".write(toFile: file, atomically: false, encoding: .utf8)
        var searchable: Double?, previewed: Double?
        while searchable == nil || previewed == nil {
            if ContinuousClock.now - start > .seconds(30) { throw BenchError("\(word) was not indexed within 30 s") }
            if searchable == nil, try !index.search(request).isEmpty { searchable = (ContinuousClock.now - start).seconds }
            if previewed == nil, let data = FileManager.default.contents(atPath: entry), data.range(of: Data(word.utf8)) != nil {
                previewed = (ContinuousClock.now - start).seconds
            }
            usleep(1_000)
        }
        return (searchable!, previewed!)
    }

}

/// `docent`, beside this benchmark's executable, with its data, cache and settings in `work`.
struct DocentProcess {
    let binary: String
    var environment: [String: String]
    let work: String
    var indexPath: String { work + "/data/docent/index.sqlite" }

    init(work: String) {
        self.work = work
        binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("docent").path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = work + "/data"
        environment["XDG_CACHE_HOME"] = work + "/cache"
        environment["DOCENT_CONFIG_DIR"] = "/nonexistent/docent-bench-config"
        self.environment = environment
    }

    /// Runs `docent arguments` to the end, output discarded; its exit status.
    @discardableResult
    func run(_ arguments: [String]) throws -> Int32 {
        let process = try launch(arguments, log: nil)
        process.waitUntilExit()
        return process.terminationStatus
    }

    func startWatch(_ roots: [String]) throws -> Process {
        try launch(["watch"] + roots, log: work + "/watch.log")
    }

    /// Seconds from now until the watcher's status says "watching": the SQLite index's, or
    /// the one a PostgreSQL store keeps beside Docent's data (named by the address).
    func waitUntilWatching(_ watcher: Process) throws -> Double {
        let start = ContinuousClock.now, directory = (indexPath as NSString).deletingLastPathComponent
        while true {
            let statuses = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.hasSuffix(".watch.json") }.compactMap { WatchStatus.read(from: directory + "/" + $0) }
            if statuses.contains(where: { $0.state == .watching && $0.pid == watcher.processIdentifier }) { break }
            guard watcher.isRunning else { throw BenchError("docent watch exited; see \(work)/watch.log") }
            usleep(5_000)
        }
        return (ContinuousClock.now - start).seconds
    }

    func status() -> WatchStatus? { WatchStatus.read(from: indexPath + ".watch.json") }

    func stop(_ process: Process) throws {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    private func launch(_ arguments: [String], log: String?) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment
        if let log {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }
}

/// CPU time, context switches (every thread's) and memory of a process, from /proc.
struct ProcStat {
    var cpuSeconds = 0.0
    var contextSwitches = 0
    var rssMB = 0.0
    var peakRSSMB = 0.0

    init(pid: Int32) {
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after the command name: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) { cpuSeconds = (user + system) / ticks }
        }
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            for (key, value) in Self.fields("/proc/\(pid)/task/\(task)/status") where key.hasSuffix("ctxt_switches") {
                contextSwitches += Int(value) ?? 0
            }
        }
        let status = Dictionary(Self.fields("/proc/\(pid)/status"), uniquingKeysWith: { a, _ in a })
        rssMB = (Double(status["VmRSS"]?.split(separator: " ").first ?? "") ?? 0) / 1024
        peakRSSMB = (Double(status["VmHWM"]?.split(separator: " ").first ?? "") ?? 0) / 1024
    }

    private static func fields(_ path: String) -> [(String, String)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
