import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How many times Docent opens each file: every `openat` of every docent process (the
/// indexer, the watcher, their helpers), counted with `strace -f`, for a cold index of the
/// corpus and for a change under `docent watch`, with a cached preview and without.
struct OpensFigures {
    /// Successful opens of corpus files per file, over the whole cold index.
    var coldPerFile: Double
    /// The most any one file was opened.
    var coldMostForOneFile: Int
    /// Per changed file under `docent watch` (a sample of every kind, half with a cached preview).
    var watchPerChangedFile: Double
    var watchMostForOneFile: Int
    /// The files opened more than once (at most a few named), for the log.
    var repeated: [String]
}

enum OpensBench {
    /// Successful `openat` calls per path, from `strace -f -e trace=openat` output.
    static func opens(inTrace path: String) -> [String: Int] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.contains("openat(") && !line.contains("= -1 ") && !line.contains("O_DIRECTORY") {
            guard let open = line.range(of: ", \""), let close = line.range(of: "\", ", range: open.upperBound..<line.endIndex) else { continue }
            counts[String(line[open.upperBound..<close.lowerBound]), default: 0] += 1
        }
        return counts
    }

    static func measure(corpus: String, files: [String], work: String, log: (String) -> Void) throws -> OpensFigures? {
        guard access("/usr/bin/strace", X_OK) == 0 else {
            log("strace is not installed: opens per file are not measured")
            return nil
        }
        // A cold index under strace.
        let docent = DocentProcess(work: work + "/opens")
        try? FileManager.default.removeItem(atPath: docent.work)
        try FileManager.default.createDirectory(atPath: docent.work, withIntermediateDirectories: true)
        let trace = docent.work + "/cold.trace"
        let result = try Spawn.run(["/usr/bin/strace", "-f", "-qq", "-e", "trace=openat", "-o", trace, docent.binary, "index", corpus],
                                   environment: docent.environment)
        guard result.status == 0 else { throw BenchError("docent index under strace exited with \(result.status)") }
        let cold = opens(inTrace: trace)
        let corpusCounts = files.map { cold[$0] ?? 0 }
        var repeated = zip(files, corpusCounts).filter { $0.1 > 1 }.prefix(5).map { "\($0.0) ×\($0.1)" }

        // A sample of every kind, each file changed under docent watch.
        let sample = docent.work + "/sample"
        try FileManager.default.createDirectory(atPath: sample, withIntermediateDirectories: true)
        var byExtension: [String: [String]] = [:]
        for file in files {
            let name = (file as NSString).lastPathComponent
            let ext = (name as NSString).pathExtension.lowercased()
            if byExtension[ext, default: []].count < 6 { byExtension[ext, default: []].append(file) }
        }
        var copies: [String] = []
        for (i, file) in byExtension.values.joined().enumerated() {
            let copy = sample + "/\(i)-" + (file as NSString).lastPathComponent
            guard (try? FileManager.default.copyItem(atPath: file, toPath: copy)) != nil else { continue }
            copies.append(copy)
        }
        guard try docent.run(["index", sample]) == 0 else { throw BenchError("docent index of the sample failed") }
        for copy in copies.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) { try docent.run(["preview", copy]) }  // half cached
        let watchTrace = docent.work + "/watch.trace"
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        watcher.arguments = ["-f", "-qq", "-e", "trace=openat", "-o", watchTrace, docent.binary, "watch", sample]
        watcher.environment = docent.environment
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        let start = ContinuousClock.now
        while docent.status()?.state != .watching {
            guard watcher.isRunning, ContinuousClock.now - start < .seconds(60) else { throw BenchError("docent watch did not start") }
            usleep(10_000)
        }
        let before = opens(inTrace: watchTrace)
        let now = Date().timeIntervalSince1970 + 10
        for copy in copies {
            var times = [timespec(tv_sec: Int(now), tv_nsec: 0), timespec(tv_sec: Int(now), tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, copy, &times, 0)
        }
        // Applied: nothing pending, and the trace (every open of every docent process) still
        // for a second — a bounded observation, as only a span can show that nothing more comes.
        var size = -1, still = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(180) {
            let status = docent.status()
            let now = (try? FileManager.default.attributesOfItem(atPath: watchTrace)[.size] as? Int) ?? 0
            if now != size || status?.pending != 0 || status?.state != .watching { (size, still) = (now, ContinuousClock.now) }
            if ContinuousClock.now - still > .seconds(1) { break }
            usleep(50_000)
        }
        // strace ignores SIGTERM (it inherits the ignored signal): the watcher it runs is stopped,
        // and strace ends with it.
        for child in LoadBench.children(of: watcher.processIdentifier) { kill(child, SIGTERM) }
        watcher.waitUntilExit()
        let after = opens(inTrace: watchTrace)
        let watchCounts = copies.map { (after[$0] ?? 0) - (before[$0] ?? 0) }
        repeated += zip(copies, watchCounts).filter { $0.1 > 1 }.prefix(5).map { "watch: \($0.0) ×\($0.1)" }
        return OpensFigures(coldPerFile: Double(corpusCounts.reduce(0, +)) / Double(max(files.count, 1)),
                            coldMostForOneFile: corpusCounts.max() ?? 0,
                            watchPerChangedFile: Double(watchCounts.reduce(0, +)) / Double(max(copies.count, 1)),
                            watchMostForOneFile: watchCounts.max() ?? 0, repeated: repeated)
    }
}
