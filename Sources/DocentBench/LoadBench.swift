import ArgumentParser
import Engine
import Foundation
import Index
import Synchronization
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench load`: `docent watch` on the corpus under sustained change — a writer
/// rewriting files at a steady rate while `docent search` processes run every 100 ms. It
/// reports the watcher's memory over time, how soon a write is searchable, whether any
/// search failed, and, once the writer stops and the watcher settles, whether any update
/// was lost.
struct LoadBench: ParsableCommand, BenchOutput {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "docent watch under sustained writes and searches: RSS over time, write→searchable, failed searches, lost updates."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "Files rewritten per second.")
    var rate = 500

    @Option(help: "How long the load lasts, in seconds.")
    var seconds = 300.0

    @Option(help: "The files the writer cycles through (each rewritten every files/rate seconds).")
    var files = 2000

    @Option(help: "Milliseconds between the starts of two `docent search` processes.")
    var searchEvery = 100

    @Option(help: "Keep the index and cache here (reused by the next run).")
    var work: String?

    func run() throws {
        guard FileManager.default.fileExists(atPath: corpus) else { throw ValidationError("no corpus at \(corpus); see Benchmarks/make-corpus.sh") }
        let work = self.work ?? FileManager.default.temporaryDirectory.appendingPathComponent("docent-load-\(getpid())").path
        let scratch = work + "/churn"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if self.work == nil { try? FileManager.default.removeItem(atPath: work) } }
        let paths = (0..<files).map { "\(scratch)/d\($0 % 20)/f\($0).txt" }
        for (i, path) in paths.enumerated() {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Self.text(file: i, generation: 0).write(toFile: path, atomically: false, encoding: .utf8)
        }
        let docent = DocentProcess(work: work)
        let watcher = try docent.startWatch([corpus, scratch])
        let started = try docent.waitUntilWatching(watcher)
        log("watching after \(fmt(started)) s; load: \(rate) files/s over \(files) files for \(fmt(seconds)) s, a search every \(searchEvery) ms")
        let index = try FileIndex(path: docent.indexPath)

        let stop = Atomic(false)
        let latest = Mutex([Int](repeating: 0, count: files))  // the generation each file holds
        let probes = Mutex<[(token: String, file: String, written: ContinuousClock.Instant)]>([])
        let latencies = Mutex<[Double]>([])
        let searches = Mutex<(run: Int, failed: Int, times: [Double], failures: [String])>((0, 0, [], []))
        var curve: [(Double, Double, Double)] = []  // seconds, watcher RSS MB, helpers' RSS MB
        let begin = ContinuousClock.now
        let (rate, fileCount) = (self.rate, self.files)

        // The writer: `rate` rewrites a second, paced in 10 ms ticks; one write in 50 is a probe.
        let writer = Thread {
            var written = 0
            while !stop.load(ordering: .acquiring) {
                let due = Int((ContinuousClock.now - begin).seconds * Double(rate))
                while written < due {
                    let file = written % fileCount, generation = written / fileCount + 1
                    try? Self.text(file: file, generation: generation).write(toFile: paths[file], atomically: written % 3 == 0, encoding: .utf8)
                    latest.withLock { $0[file] = generation }
                    if written % 50 == 0 {
                        probes.withLock { $0.append((Self.token(file: file, generation: generation), paths[file], .now)) }
                    }
                    written += 1
                }
                usleep(10_000)
            }
        }
        // The prober: how soon each probed write is found, polling the index every 2 ms.
        let prober = Thread {
            while !stop.load(ordering: .acquiring) {
                for probe in probes.withLock({ $0 }) {
                    guard let query = try? SearchQuery.parse(probe.token), let hits = try? index.search(SearchRequest(match: query.match, limit: 1))
                    else { continue }
                    let superseded = ContinuousClock.now - probe.written > .seconds(Double(fileCount) / Double(rate))
                    if !hits.isEmpty || superseded {
                        // A probe rewritten again before it was found counts as slower than the whole period.
                        let latency = hits.isEmpty ? Double.infinity : (ContinuousClock.now - probe.written).seconds
                        latencies.withLock { $0.append(latency) }
                        probes.withLock { $0.removeAll { $0.token == probe.token } }
                    }
                }
                usleep(2_000)
            }
        }
        // The searcher: a whole `docent search` process every `searchEvery` ms, on words of the
        // corpus and of the churning files; exit 0 or 1 is an answer, anything else a failure.
        let words = ["license", "python", "function", "gnuplot", "churnword", "type:pdf manual", "\"free software\"", "ext:html index"]
        let interval = searchEvery
        let searcher = Thread {
            var n = 0
            while !stop.load(ordering: .acquiring) {
                let tick = ContinuousClock.now
                let query = words[n % words.count]
                n += 1
                let process = Process()
                process.executableURL = URL(fileURLWithPath: docent.binary)
                process.arguments = ["search", "--limit", "10"] + query.split(separator: " ").map(String.init)
                process.environment = docent.environment
                process.standardOutput = FileHandle.nullDevice
                let errors = Pipe()
                process.standardError = errors
                do {
                    try process.run()
                    let said = errors.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    let ok = process.terminationReason == .exit && [0, 1].contains(process.terminationStatus)
                    searches.withLock {
                        $0.run += 1
                        $0.times.append((ContinuousClock.now - tick).seconds)
                        if !ok {
                            $0.failed += 1
                            $0.failures.append("\(query): exit \(process.terminationStatus) \(String(decoding: said, as: UTF8.self))")
                        }
                    }
                } catch {
                    searches.withLock { $0.failed += 1; $0.failures.append("\(error)") }
                }
                let left = Duration.milliseconds(interval) - (ContinuousClock.now - tick)
                if left > .zero { usleep(useconds_t(left.seconds * 1_000_000)) }
            }
        }
        for thread in [writer, prober, searcher] { thread.start() }

        // The memory curve: the watcher and its helper processes, every second.
        while (ContinuousClock.now - begin).seconds < seconds {
            guard watcher.isRunning else { throw BenchError("docent watch exited under load; see \(work)/watch.log") }
            let own = ProcStat(pid: watcher.processIdentifier).rssMB
            let helpers = Self.children(of: watcher.processIdentifier).map { ProcStat(pid: $0).rssMB }.reduce(0, +)
            curve.append(((ContinuousClock.now - begin).seconds, own, helpers))
            usleep(1_000_000)
        }
        stop.store(true, ordering: .releasing)
        usleep(300_000)

        // Settled: every file's last generation must be in the index.
        let settleStart = ContinuousClock.now
        while docent.status()?.state != .watching || (docent.status()?.pending ?? 1) > 0 {
            guard ContinuousClock.now - settleStart < .seconds(120) else { throw BenchError("the watcher did not settle within 120 s") }
            usleep(10_000)
        }
        let settle = (ContinuousClock.now - settleStart).seconds
        var lost: [String] = []
        for (file, generation) in latest.withLock({ $0 }).enumerated() {
            let query = try SearchQuery.parse(Self.token(file: file, generation: generation))
            let hits = try index.search(SearchRequest(match: query.match, limit: 2))
            if hits.map({ String(decoding: $0.path, as: UTF8.self) }) != [paths[file]] { lost.append(paths[file]) }
        }
        let peak = ProcStat(pid: watcher.processIdentifier).peakRSSMB
        try docent.stop(watcher)

        let s = searches.withLock { $0 }, l = latencies.withLock { $0 }
        log("")
        log("memory (MB), every 30 s: watcher RSS / helpers' RSS")
        for point in curve where Int(point.0) % 30 == 0 || point.0 == curve.last!.0 {
            log("  \(String(format: "%5.0f s", point.0))  \(String(format: "%6.1f", point.1)) / \(String(format: "%6.1f", point.2))")
        }
        let rss = curve.map(\.1)
        let firstMinute = rss.prefix(60).max() ?? 0, lastMinute = rss.suffix(60).max() ?? 0
        print("load                      \(rate) files/s over \(files) files for \(fmt(seconds)) s")
        print("watcherRSSMaxMB           \(fmt(rss.max() ?? 0)) (first minute \(fmt(firstMinute)), last minute \(fmt(lastMinute)); peak HWM \(fmt(peak)))")
        print("helpersRSSMaxMB           \(fmt(curve.map(\.2).max() ?? 0))")
        print("writeToSearchableP50ms    \(fmt(percentile(l, 50) * 1000)) (\(l.count) probes, \(l.filter(\.isInfinite).count) rewritten before found)")
        print("writeToSearchableP99ms    \(fmt(percentile(l, 99) * 1000))")
        print("searches                  \(s.run) run, \(s.failed) failed; whole-process p50 \(fmt(percentile(s.times, 50) * 1000)) ms, p99 \(fmt(percentile(s.times, 99) * 1000)) ms")
        print("settleAfterLoadSeconds    \(fmt(settle))")
        print("lostUpdates               \(lost.count) of \(files) files")
        for failure in s.failures.prefix(5) { log("failed search: \(failure)") }
        for path in lost.prefix(5) { log("lost: \(path)") }
        if s.failed > 0 || !lost.isEmpty { throw ExitCode(1) }
    }

    static func token(file: Int, generation: Int) -> String { "churn\(file)g\(generation)x" }

    static func text(file: Int, generation: Int) -> String {
        "churnword file \(file) now holds \(token(file: file, generation: generation)); "
            + String(repeating: "steady words about the load \(file % 13) ", count: 20 + file % 40) + "\n"
    }

    /// The processes `pid` started (its helpers), from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        }
    }

}
