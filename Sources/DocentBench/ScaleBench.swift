import ArgumentParser
import Foundation
import Index
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench scale`: Docent's costs on synthetic home directories of growing size, in one
/// run — per-file cold-index cost and memory (the trees read first, a few cold indexes of each,
/// the sizes taking turns), index size, a no-change re-index against an lstat
/// walk of the same tree, every search class of the suite (beside the same queries on the bench
/// corpus's index), `docent watch`'s start-up and memory, and a burst of changes spread over the
/// tree.
struct ScaleBench: ParsableCommand, BenchOutput {
    static let configuration = CommandConfiguration(
        commandName: "scale",
        abstract: "Costs at 100,000 and 1,000,000 files (a seeded synthetic tree): index, re-index, searches, watch, a burst of changes.",
        discussion: "The trees are kept in --work and made again only when their size or seed changes. Prints a Markdown table."
    )

    @Option(help: "Tree sizes in files, comma-separated.")
    var sizes = "100000,1000000"

    @Option(help: "The seed of the trees.")
    var seed: UInt64 = 45

    @Option(help: "The bench corpus: real documents copied into the trees, and the searches' baseline (its index in --corpus-work).")
    var corpus = "/tmp/docent-bench/corpus"

    @Option(help: "A work directory whose data/docent/index.sqlite indexes the corpus (made there when missing).")
    var corpusWork = "/tmp/docent-bench/scale-corpus"

    @Option(help: "Work directory: the trees, their indexes.")
    var work = "/tmp/docent-bench/scale"

    @Option(help: "Cold indexes of each tree (each into a new index); the median is reported.")
    var coldRuns = 3

    @Option(help: "Whole-process runs of each search; the median is reported.")
    var searchRuns = 11

    @Option(help: "Files rewritten in the burst under docent watch.")
    var burst = 10_000

    @Option(help: "The burst's pace in files a second (0: as fast as one process writes).")
    var burstRate = 0

    @Flag(help: "Also two hosts' trees of half the largest size each, indexed at once into one PostgreSQL server.")
    var postgres = false

    @Option(help: "Only `searches`, `watch` (on the trees and indexes a previous run left in --work) or `postgres`.")
    var only: String?

    func run() throws {
        let sizes = self.sizes.split(separator: ",").compactMap { Int($0) }
        guard !sizes.isEmpty else { throw ValidationError("--sizes: say how many files, e.g. 100000,1000000") }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let corpusIndex = only == "watch" || only == "postgres" ? nil : try self.corpusIndex()
        var columns: [(size: Int, figures: [String: Double])] = []
        if only == "postgres", let largest = sizes.max() {
            // PostgreSQL alone, its searches beside those of the SQLite index a full run left.
            let sqlite = DocentProcess(work: work + "/docent-\(largest)")
            var figures: [String: Double] = [:]
            if FileManager.default.fileExists(atPath: sqlite.indexPath) {
                for (label, ms) in try searches(sqlite) { figures["search." + label] = ms }
            }
            return print(ScalePostgres.table(try ScalePostgres(bench: self, files: largest).measure(), sqlite: figures, files: largest))
        }
        // The cold indexes first, the sizes taking turns (the machine's pace moves by half
        // within an hour here, and a size's runs back to back measured that, not the size).
        let colds = only == nil ? try coldIndexes(sizes) : [:]
        for size in sizes {
            if let only {
                let docent = DocentProcess(work: work + "/docent-\(size)")
                guard FileManager.default.fileExists(atPath: docent.indexPath) else { throw ValidationError("no index at \(docent.indexPath): run without --only first") }
                log("\(size):")
                var figures: [String: Double] = [:]
                switch only {
                case "searches": try measureSearches(docent, beside: corpusIndex, into: &figures)
                case "watch": try measureWatch(docent, root: work + "/tree-\(size)", into: &figures)
                default: throw ValidationError("--only: searches or watch")
                }
                columns.append((size, figures))
            } else {
                columns.append((size, try measure(size: size, colds: colds[size] ?? [:], corpus: corpusIndex)))
            }
        }
        print(table(columns))
        if postgres, let largest = sizes.max() {
            let figures = try ScalePostgres(bench: self, files: largest).measure()
            let sqlite = columns.first { $0.size == largest }?.figures ?? [:]
            print("")
            print(ScalePostgres.table(figures, sqlite: sqlite, files: largest))
        }
    }

    // MARK: One size

    /// The tree of `size` files, made when missing or made from another recipe.
    func tree(_ size: Int) throws -> String {
        let root = work + "/tree-\(size)"
        let marker = root + ".made"
        let recipe = "files \(size) seed \(seed) corpus \(corpus)\n"
        if (try? String(contentsOfFile: marker, encoding: .utf8)) != recipe {
            log("making \(root) …")
            let seconds = try Measure.seconds { _ = try ScaleTree(root: root, files: size, seed: seed).make(corpus: corpus) }
            try recipe.write(toFile: marker, atomically: true, encoding: .utf8)
            log("made \(size) files in \(fmt(seconds)) s")
        }
        return root
    }

    /// One cold index: its wall time, the peak PSS of its processes, the files it indexed.
    struct ColdRun { var seconds, peak, files: Double; var secondsPerThousand: Double { seconds / max(files, 1) * 1000 } }

    /// `coldRuns` cold indexes of each size, the sizes taking turns, and one more of the
    /// first at the end, so that each run of another size has a run of the first just
    /// before and just after it: its per-file cost is compared with theirs (`coldRatio`, the
    /// median over the rounds). Each index is made anew; the last of each size stays for what
    /// follows. Every tree is read first, so that each cold index finds it in the page cache.
    func coldIndexes(_ sizes: [Int]) throws -> [Int: [String: Double]] {
        var runs: [Int: [ColdRun]] = [:]
        for size in sizes {
            let root = try tree(size)
            let warmed = Measure.seconds { _ = ScaleTree.readEveryFile(root) }
            log("\(size): read the tree in \(fmt(warmed)) s")
        }
        func cold(_ size: Int) throws {
            let docent = DocentProcess(work: work + "/docent-\(size)")
            try? FileManager.default.removeItem(atPath: docent.work)
            try FileManager.default.createDirectory(atPath: docent.work, withIntermediateDirectories: true)
            let out = docent.work + "/index.json"
            let cold = try Spawn.run([docent.binary, "index", work + "/tree-\(size)", "--json"], environment: docent.environment, stdoutPath: out, sampleMemory: true)
            guard cold.status == 0 else { throw BenchError("docent index exited with \(cold.status)") }
            let summary = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out)))) as? [String: Any]
            runs[size, default: []].append(ColdRun(seconds: cold.seconds, peak: cold.peakTreePSSMB ?? 0, files: Double(summary?["files"] as? Int ?? 0)))
            log("\(size): cold index \(fmt(cold.seconds)) s, tree PSS \(fmt(cold.peakTreePSSMB ?? 0)) MB")
        }
        let rounds = max(coldRuns, 1)
        for _ in 0..<rounds {
            for size in sizes { try cold(size) }
        }
        guard let first = sizes.first else { return [:] }
        if sizes.count > 1 { try cold(first) }
        var figures: [Int: [String: Double]] = [:]
        for (size, list) in runs {
            // The first size's extra run stays out of its median, so every size has `rounds` runs.
            let kept = Array(list.prefix(rounds))
            figures[size] = ["files": kept.last!.files, "coldSecondsPerThousand": Measure.median(kept.map(\.secondsPerThousand)),
                             "coldPeakTreePSSMB": Measure.median(kept.map(\.peak))]
            if size != first, let base = runs[first], base.count == rounds + 1 {
                let ratios = (0..<rounds).map { i in list[i].secondsPerThousand / ((base[i].secondsPerThousand + base[i + 1].secondsPerThousand) / 2) }
                figures[size]!["coldRatio"] = Measure.median(ratios)
                log("\(size): per-file cold index against \(first) files around it: " + ratios.map { fmt($0) + "×" }.joined(separator: ", "))
            }
        }
        return figures
    }

    func measure(size: Int, colds: [String: Double], corpus corpusIndex: DocentProcess?) throws -> [String: Double] {
        let root = try tree(size)
        var figures = colds
        let docent = DocentProcess(work: work + "/docent-\(size)")
        let walk = (0..<3).map { _ in Measure.seconds { figures["entries"] = Double(ScaleTree.lstatWalk(root)) } }
        figures["lstatWalkSeconds"] = Measure.median(walk)
        let indexed = figures["files"] ?? 0
        figures["indexBytesPerFile"] = SuiteBench.size(ofFilesAt: docent.indexPath, suffixes: ["", "-wal", "-shm"]) * 1_048_576 / max(indexed, 1)

        let reindex = try (0..<3).map { _ in
            let result = try Spawn.run([docent.binary, "index", root], environment: docent.environment)
            guard result.status == 0 else { throw BenchError("docent index (no change) exited with \(result.status)") }
            return result.seconds
        }
        figures["reindexSeconds"] = Measure.median(reindex)
        log("\(size): no-change re-index \(fmt(figures["reindexSeconds"]!)) s, lstat walk \(fmt(figures["lstatWalkSeconds"]!)) s")

        try measureSearches(docent, beside: corpusIndex, into: &figures)
        try measureWatch(docent, root: root, into: &figures)
        return figures
    }

    /// Each query class's median time, in ms, as whole `docent search` processes.
    func searches(_ docent: DocentProcess) throws -> [String: Double] {
        try searches(docent, beside: nil).tree
    }

    /// The same, and with `corpus` the same searches on its index, each run beside one of the
    /// tree's (alternating, so that a machine that slows down for a minute slows both: measured
    /// minutes apart, the corpus's and the tree's figures moved by a third between runs).
    func searches(_ docent: DocentProcess, beside corpus: DocentProcess?) throws -> (tree: [String: Double], corpus: [String: Double]) {
        var tree: [String: Double] = [:], base: [String: Double] = [:]
        func once(_ docent: DocentProcess, _ query: BenchQuery) throws -> Double {
            let result = try Spawn.run([docent.binary, "search", query.docent] + query.arguments, environment: docent.environment)
            guard result.status == 0 || result.status == 1 else { throw BenchError("docent search \(query.shown) exited with \(result.status)") }
            return result.seconds * 1000
        }
        for query in BenchQuery.all + BenchQuery.suggesting {
            var runs: [Double] = [], corpusRuns: [Double] = []
            for _ in 0..<searchRuns {
                if let corpus { corpusRuns.append(try once(corpus, query)) }
                runs.append(try once(docent, query))
            }
            tree[query.label] = Measure.median(runs)
            if corpus != nil { base[query.label] = Measure.median(corpusRuns) }
            log("  search \(query.shown): \(fmt(tree[query.label]!)) ms" + (corpus != nil ? ", the corpus \(fmt(base[query.label]!)) ms" : ""))
        }
        return (tree, base)
    }

    /// The searches of `docent`'s index as figures (`search.…`), and beside them the corpus's
    /// (`corpus.…`), measured alternately.
    func measureSearches(_ docent: DocentProcess, beside corpus: DocentProcess?, into figures: inout [String: Double]) throws {
        let (tree, base) = try searches(docent, beside: corpus)
        for (label, ms) in tree { figures["search." + label] = ms }
        for (label, ms) in base { figures["corpus." + label] = ms }
    }

    /// The bench corpus's index (made when missing), the searches' baseline; nil without the corpus.
    func corpusIndex() throws -> DocentProcess? {
        let docent = DocentProcess(work: corpusWork)
        if !FileManager.default.fileExists(atPath: docent.indexPath) {
            guard FileManager.default.fileExists(atPath: corpus) else { return nil }
            log("indexing the corpus into \(corpusWork) for the searches' baseline …")
            guard try Spawn.run([docent.binary, "index", corpus], environment: docent.environment).status == 0 else { throw BenchError("docent index of the corpus failed") }
        }
        return docent
    }

    // MARK: Watch

    /// `docent watch` on the indexed tree: time until every directory is watched, memory, the
    /// kernel's watch count; then `burst` plain texts rewritten at once, each with the run's
    /// marker word, and the time from each write until a search finds it.
    func measureWatch(_ docent: DocentProcess, root: String, into figures: inout [String: Double]) throws {
        let watcher = try docent.startWatch([root])
        defer { try? docent.stop(watcher) }
        figures["watchStartSeconds"] = try docent.waitUntilWatching(watcher)
        let pids = TreeMemorySampler.tree(watcher.processIdentifier)
        figures["watchRSSMB"] = pids.map { ProcStat(pid: $0).rssMB }.reduce(0, +)
        figures["kernelWatches"] = Double(pids.map(Self.inotifyWatches).reduce(0, +))
        figures["watchedDirectories"] = Double(docent.status()?.watchedDirectories ?? 0)
        log("watch: watching after \(fmt(figures["watchStartSeconds"]!)) s, RSS \(fmt(figures["watchRSSMB"]!)) MB, \(Int(figures["kernelWatches"]!)) kernel watches")

        let list = (try? String(contentsOfFile: ScaleTree.textsList(root), encoding: .utf8)) ?? ""
        var candidates = list.split(separator: "\n").map(String.init)
        var rng = SplitMix64(seed: seed ^ 0xB0057)
        for i in stride(from: candidates.count - 1, to: 0, by: -1) { candidates.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        let chosen = Array(candidates.prefix(burst))
        guard !chosen.isEmpty else { return }
        let marker = "zqburst\(getpid())"
        let index = try FileIndex.searching(path: docent.indexPath)
        // Each file also holds the word of its group of 64 (in the order written), searched for
        // while the group has files written and not yet found: a search for the run's word
        // alone returned every file found so far, and at thousands cost a core's worth.
        let groupSize = 64
        @Sendable func group(_ k: Int) -> String { "\(marker)g\(k / groupSize)" }
        func request(_ group: String) -> SearchRequest {
            var request = SearchRequest(match: .term(group), limit: groupSize + 1)
            (request.snippets, request.ranked, request.refined) = (false, false, false)
            return request
        }
        // The writes on a thread of their own, the searches here meanwhile: a file is timed
        // from its own write, while the rest of the burst is still being written.
        let written = Mutex<[String: ContinuousClock.Instant]>([:])
        let writtenCount = Atomic<Int>(0)
        let writing = Mutex<(done: Bool, failure: String?)>((false, nil))
        var found: [String: Double] = [:]
        let burstStart = ContinuousClock.now
        let rate = burstRate
        let writer = Thread {
            for (k, path) in chosen.enumerated() {
                if rate > 0 {  // paced: the k-th write at k / rate seconds
                    let due = burstStart + .nanoseconds(Int64(Double(k) / Double(rate) * 1e9))
                    let wait = due - ContinuousClock.now
                    if wait > .zero { usleep(useconds_t(max(0, wait.seconds * 1e6))) }
                }
                do {
                    try "rewritten in the burst: \(marker) \(group(k)) number \(k)\n".write(toFile: path, atomically: false, encoding: .utf8)
                } catch {
                    writing.withLock { $0.failure = "\(error)" }
                    break
                }
                let now = ContinuousClock.now
                written.withLock { $0[path] = now }
                writtenCount.store(k + 1, ordering: .releasing)
            }
            writing.withLock { $0.done = true }
        }
        writer.start()
        let deadline = ContinuousClock.now + .seconds(180)
        // Every 2 ms the index's commit counter is read (one connection: `searching`); after a
        // commit, each group with files written and not yet found is searched for.
        var probes = 0, searches = 0, searching = Duration.zero, version = -1
        var left = Dictionary(grouping: chosen.indices, by: { $0 / groupSize }).mapValues(Set.init)
        while found.count < chosen.count, ContinuousClock.now < deadline {
            let s0 = ContinuousClock.now
            let current = try index.dataVersion()
            probes += 1
            if current != version {
                version = current
                let writtenSoFar = writtenCount.load(ordering: .acquiring)
                for g in left.keys.sorted() where g * groupSize < writtenSoFar {
                    let hits = try index.search(request(group(g * groupSize)))
                    searches += 1
                    let now = ContinuousClock.now
                    let times = written.withLock { $0 }
                    for hit in hits where found[hit.displayPath] == nil {
                        if let start = times[hit.displayPath] { found[hit.displayPath] = (now - start).seconds * 1000 }
                    }
                    left[g] = left[g]!.filter { found[chosen[$0]] == nil }
                    if left[g]!.isEmpty { left[g] = nil }
                }
            }
            searching += ContinuousClock.now - s0
            if let failure = writing.withLock({ $0.failure }) { throw BenchError("the burst's writes failed: \(failure)") }
            usleep(2_000)
        }
        while !writing.withLock({ $0.done }) { usleep(10_000) }
        figures["burstWriteSeconds"] = (written.withLock { $0.values.max() }.map { $0 - burstStart } ?? .zero).seconds
        figures["burstAllFoundSeconds"] = (ContinuousClock.now - burstStart).seconds
        let latencies = Array(found.values)
        figures["burstFound"] = Double(latencies.count)
        log("burst: \(probes) looks at the commit counter, \(searches) searches, \(fmt(searching.seconds)) s in them")
        figures["burstP50ms"] = percentile(latencies, 50)
        figures["burstP99ms"] = percentile(latencies, 99)
        figures["watchRSSMBAfterBurst"] = TreeMemorySampler.tree(watcher.processIdentifier).map { ProcStat(pid: $0).rssMB }.reduce(0, +)
        log("burst of \(chosen.count): \(latencies.count) found, write → searchable p50 \(fmt(figures["burstP50ms"]!)) ms, p99 \(fmt(figures["burstP99ms"]!)) ms")
        // The watcher's upkeep once idle (`IndexStore.tidyWhileIdle`): FTS5's segments when the
        // burst was found, and once the index has not changed for 2 s (its commit counter looked
        // at every 50 ms, up to 2 minutes).
        figures["segmentsAfterBurst"] = Double(try index.fullTextSegments())
        let busyEnd = ContinuousClock.now
        var last = try index.dataVersion(), quietSince = busyEnd
        while ContinuousClock.now - quietSince < .seconds(2), ContinuousClock.now - busyEnd < .seconds(120) {
            usleep(50_000)
            let now = try index.dataVersion()
            if now != last { (last, quietSince) = (now, .now) }
        }
        figures["tidySeconds"] = (quietSince - busyEnd).seconds
        figures["segmentsIdle"] = Double(try index.fullTextSegments())
        log("FTS5 segments: \(Int(figures["segmentsAfterBurst"]!)) when the burst was found, \(Int(figures["segmentsIdle"]!)) once idle (after \(fmt(figures["tidySeconds"]!)) s)")
    }

    /// The inotify watches the process holds (its descriptors' `inotify wd:` lines).
    static func inotifyWatches(_ pid: pid_t) -> Int {
        let directory = "/proc/\(pid)/fdinfo"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).reduce(0) { total, fd in
            guard let info = try? String(contentsOfFile: directory + "/" + fd, encoding: .utf8) else { return total }
            return total + info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
    }

    // MARK: Report

    func table(_ columns: [(size: Int, figures: [String: Double])]) -> String {
        // The corpus's searches as measured beside the largest tree's.
        let baseline = (columns.last?.figures ?? [:]).reduce(into: [String: Double]()) { out, entry in
            if entry.key.hasPrefix("corpus.") { out[String(entry.key.dropFirst(7))] = entry.value }
        }
        let rows: [(key: String, label: String)] = [
            ("files", "files indexed"), ("entries", "entries in the tree (files and directories)"),
            ("coldSecondsPerThousand", "cold index, s per 1,000 files (median of \(coldRuns))"),
            ("coldRatio", "cold index per file against the first size's runs just before and after (median of \(coldRuns))"),
            ("coldPeakTreePSSMB", "cold index, peak PSS of all processes (MB, median of \(coldRuns))"),
            ("indexBytesPerFile", "index bytes per file"), ("reindexSeconds", "no-change re-index (s)"), ("lstatWalkSeconds", "lstat walk of the tree (s)"),
        ] + (BenchQuery.all + BenchQuery.suggesting).map { ("search." + $0.label, "search, \($0.label): `\($0.shown)` (ms)") } + [
            ("watchStartSeconds", "docent watch: start until watching (s)"), ("watchedDirectories", "directories watched"),
            ("kernelWatches", "kernel inotify watches"), ("watchRSSMB", "docent watch RSS, watching (MB)"),
            ("burstFound", "burst: files found of those rewritten"), ("burstWriteSeconds", "burst: seconds to write them"),
            ("burstAllFoundSeconds", "burst: seconds until the last was found"), ("burstP50ms", "burst: write → searchable p50 (ms)"),
            ("burstP99ms", "burst: write → searchable p99 (ms)"), ("watchRSSMBAfterBurst", "docent watch RSS after the burst (MB)"),
            ("segmentsAfterBurst", "FTS5 segments when the burst was found"),
            ("tidySeconds", "idle upkeep: seconds until the index stopped changing"), ("segmentsIdle", "FTS5 segments once the watcher was idle"),
        ]
        var lines = ["| | " + columns.map { "\($0.size.formatted()) files" }.joined(separator: " | ") + " | bench corpus (beside the largest) |",
                     "|---|" + String(repeating: "---:|", count: columns.count + 1)]
        for (key, label) in rows {
            let counted: Set<String> = ["files", "entries", "watchedDirectories", "kernelWatches", "burstFound", "indexBytesPerFile",
                                        "segmentsAfterBurst", "segmentsIdle"]
            let cells = columns.map { $0.figures[key].map { counted.contains(key) ? Int($0).formatted() : fmt($0) } ?? "" }
            let base = key.hasPrefix("search.") ? baseline[String(key.dropFirst(7))].map(fmt) ?? "" : ""
            lines.append("| \(label) | " + cells.joined(separator: " | ") + " | \(base) |")
        }
        if let first = columns.first, let last = columns.last, columns.count > 1 {
            lines.append("")
            if only == nil { lines.append("Ratios, \(last.size.formatted()) against \(first.size.formatted()) files: per-file cold index "
                + fmt(last.figures["coldRatio"] ?? 0) + "× (goal ≤ 1.15; the median over the rounds of each run against the "
                + "\(first.size.formatted())-file runs just before and after it); "
                + "re-index / lstat walk at \(last.size.formatted()): " + fmt(last.figures["reindexSeconds"]! / last.figures["lstatWalkSeconds"]!) + "× (goal ≤ 3).") }
            let searchRatios = (BenchQuery.all + BenchQuery.suggesting).compactMap { q -> String? in
                guard let t = last.figures["search." + q.label], let b = baseline[q.label] else { return nil }
                return "\(q.label) \(fmt(t / b))×"
            }
            if !searchRatios.isEmpty { lines.append("Searches at \(last.size.formatted()) against the bench corpus (goal ≤ 2×): " + searchRatios.joined(separator: ", ") + ".") }
        }
        return lines.joined(separator: "\n")
    }
}
