import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench suite`: everything issue 7 asks of Docent, in one run on the corpus, beside the
/// floors of this machine and Recoll measured in the same run.
struct SuiteBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "The whole benchmark: floors, file(1), Docent's cold and no-change index, memory, index size, search, live updates, and Recoll, in one run.",
        discussion: """
            Prints a Markdown table (or JSON with --json) of each figure, its ratio to the floor measured in the \
            same run and to Recoll when `recollindex` is installed. Progress goes to standard error.
            """
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "Runs of each cheap timed step (floors, re-index); the median is reported.")
    var runs = 5

    @Option(help: "Cold index runs (each about a minute); the median is reported.")
    var coldRuns = 3

    @Option(help: "Whole-process runs of each search query; the median is reported.")
    var searchRuns = 11

    @Option(help: "Edits timed under docent watch.")
    var edits = 200

    @Option(help: "Recoll cold index runs (each several minutes).")
    var recollRuns = 1

    @Flag(help: "Leave Recoll out even when it is installed.")
    var skipRecoll = false

    @Flag(help: "Leave out the write-to-searchable measurement.")
    var skipLive = false

    @Flag(help: "Also index 1, 2 and 4 copies of the corpus and report time per file and memory.")
    var scaling = false

    @Option(help: "Work directory (index, copies, Recoll's configuration); removed afterwards unless given.")
    var work: String?

    @Option(help: "The judged questions for the relevance rows (docent-bench relevance).")
    var relevanceQuestions = "Benchmarks/relevance/queries.tsv"

    @Flag(help: "Print the figures as JSON instead of a table.")
    var json = false

    @Option(help: ArgumentHelp(
        "Compare the run with the figures of a Markdown file's benchmark table (the README's, or docs/Benchmarks.md's), row by row; exit status 1 if one is more than --tolerance worse.",
        valueName: "file"))
    var check: String?

    @Option(help: "How much worse a figure may be than the checked file's before --check fails (0.25: 25%).")
    var tolerance = 0.25

    func validate() throws {
        guard let check else { return }
        guard let text = try? String(contentsOfFile: check, encoding: .utf8) else { throw ValidationError("cannot read \(check)") }
        if SuiteReport.baseline(markdown: text).figures.isEmpty { throw ValidationError("\(check) has no benchmark table with a Docent column") }
    }

    func run() throws {
        let files = try listFiles()
        guard !files.isEmpty else { throw ValidationError("no files under \(corpus); build the corpus with Benchmarks/make-corpus.sh") }
        let work = self.work ?? FileManager.default.temporaryDirectory.appendingPathComponent("docent-suite-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { if self.work == nil { try? FileManager.default.removeItem(atPath: work) } }
        let bytes = files.reduce(Int64(0)) { total, path in
            var status = stat()
            return total + (lstat(path, &status) == 0 ? Int64(status.st_size) : 0)
        }
        var report = SuiteReport(date: Self.today(), machine: SuiteReport.describeMachine(), corpus: corpus,
                                 files: files.count, bytes: bytes, runs: runs)
        let lists = try FileLists(files: files, work: work)
        log("corpus: \(files.count) files, \(bytes / 1_000_000) MB")
        _ = try Spawn.shell("xargs -0 cat < '\(lists.nul)' > /dev/null")  // every contender reads from the page cache

        let floors = try measureFloors(lists, files: files)
        for row in floors.rows { report.add(row) }
        let docent = DocentProcess(work: work + "/docent")
        let recoll = skipRecoll ? nil : RecollProcess(work: work + "/recoll", corpus: corpus)
        let recollFigures = try recoll.map { try $0.measure(coldRuns: recollRuns, runs: runs, searchRuns: searchRuns, log: log) }
        if recoll == nil {
            report.notes.append(skipRecoll ? "Recoll was left out (--skip-recoll)." : "Recoll is not installed (recollindex): its column is empty.")
        }
        try measureIndexing(docent, floors: floors, recoll: recollFigures, into: &report)
        try measureSearch(docent, recoll: recollFigures, into: &report)
        try measureRelevance(docent, recoll: recoll, into: &report)
        // Not a figure of speed: a failure here is logged, and the rest of the table kept.
        let opens: OpensFigures?
        do { opens = try OpensBench.measure(corpus: corpus, files: files, work: work, log: log) } catch {
            log("opens per file not measured: \(error)")
            opens = nil
        }
        if let opens {
            report.add(SuiteRow(key: "opensPerFileCold", label: "opens per file, cold index (strace, all processes)", unit: "×",
                                docent: opens.coldPerFile, goal: 1))
            report.add(SuiteRow(key: "opensMostCold", label: "most opens of one file, cold index", unit: "×",
                                docent: Double(opens.coldMostForOneFile), goal: 1))
            report.add(SuiteRow(key: "opensPerChangeWatch", label: "opens per changed file under docent watch (half with a cached preview)",
                                unit: "×", docent: opens.watchPerChangedFile, goal: 1))
            report.add(SuiteRow(key: "opensMostWatch", label: "most opens of one changed file under docent watch", unit: "×",
                                docent: Double(opens.watchMostForOneFile), goal: 1))
            for line in opens.repeated { log("opened more than once: \(line)") }
        }
        if !skipLive { try measureLive(work: work + "/docent", into: &report) }
        if scaling { try measureScaling(work: work, into: &report) }
        print(json ? report.json() : report.markdown())
        if let check {
            let baseline = SuiteReport.baseline(markdown: try String(contentsOfFile: check, encoding: .utf8))
            let regressions = report.regressions(against: baseline, tolerance: tolerance)
            let pace = report.paceFactor(against: baseline)
            log("checked \(report.compared(with: baseline)) figures against \(check)"
                + (pace.map { String(format: ", times at this machine's pace (%.2f× the table's: \(SuiteReport.paceLabel))", $0) } ?? ", times as they are (the table has no \(SuiteReport.paceLabel) row)")
                + ": "
                + (regressions.isEmpty ? "none is more than \(Int(tolerance * 100))% worse" : "\(regressions.count) worse by more than \(Int(tolerance * 100))%"))
            for line in regressions { log("  worse: " + line) }
            if !regressions.isEmpty { throw ExitCode(1) }
        }
    }

    // MARK: Floors

    struct Floors {
        var rows: [SuiteRow] = []
        var lstat = 0.0, libmagicP2 = 0.0
    }

    func measureFloors(_ lists: FileLists, files: [String]) throws -> Floors {
        var floors = Floors()
        func timed(_ key: String, _ label: String, _ body: () throws -> Double) rethrows -> Double {
            let value = Measure.median(try (0..<runs).map { _ in try body() })
            log("\(label): \(fmt(value)) s")
            floors.rows.append(SuiteRow(key: key, label: label, unit: "s", docent: nil, floor: value, floorLabel: ""))
            return value
        }
        _ = try timed("walkSeconds", "floor: walk the tree (find)") { try Spawn.shell("find '\(corpus)' > /dev/null") }
        floors.lstat = timed("lstatSeconds", "floor: lstat every file") {
            Measure.seconds { var s = stat(); for file in files { _ = lstat(file, &s) } }
        }
        _ = try timed("readAll1Seconds", "floor: read every byte (cat, 1 process)") { try Spawn.shell("xargs -0 cat < '\(lists.nul)' > /dev/null") }
        _ = try timed("readAll2Seconds", "floor: read every byte (cat, 2 processes)") {
            try Spawn.shell("xargs -0 -P2 -n 2000 cat < '\(lists.nul)' > /dev/null")
        }
        _ = try timed("fileMimeType1Seconds", "file --mime-type (1 process)") { try Spawn.shell("file --mime-type -b -f '\(lists.lines)' > /dev/null") }
        floors.libmagicP2 = try timed("fileMimeType2Seconds", "file --mime-type (xargs -P2)") {
            try Spawn.shell("xargs -0 -P2 -n 2000 file --mime-type -b < '\(lists.nul)' > /dev/null")
        }
        if !lists.pdfs.isEmpty, access("/usr/bin/pdftotext", X_OK) == 0 {
            // Once: it takes as long as a cold index. The floor for "every PDF's text".
            let seconds = try Spawn.shell("xargs -0 -P2 -I{} pdftotext -q {} /dev/null < '\(lists.pdfNul)'")
            log("pdftotext over \(lists.pdfs.count) PDFs (xargs -P2, one run): \(fmt(seconds)) s")
            floors.rows.append(SuiteRow(key: "pdftotext2Seconds", label: "pdftotext over the \(lists.pdfs.count) PDFs (xargs -P2, 1 run)",
                                        unit: "s", floor: seconds, floorLabel: ""))
        }
        return floors
    }

    // MARK: Indexing

    func measureIndexing(_ docent: DocentProcess, floors: Floors, recoll: RecollFigures?, into report: inout SuiteReport) throws {
        var cold: [SpawnResult] = []
        var summary = ""
        try FileManager.default.createDirectory(atPath: docent.work, withIntermediateDirectories: true)
        for run in 1...coldRuns {
            try? FileManager.default.removeItem(atPath: docent.work + "/data")
            let out = docent.work + "/index.json"
            let result = try Spawn.run([docent.binary, "index", corpus, "--json"], environment: docent.environment,
                                       stdoutPath: out, sampleMemory: true)
            guard result.status == 0 else { throw BenchError("docent index exited with \(result.status)") }
            summary = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            cold.append(result)
            log("docent cold index \(run): \(fmt(result.seconds)) s, largest process \(fmt(result.maxRSSMB)) MB, tree PSS \(fmt(result.peakTreePSSMB ?? 0)) MB")
        }
        log("docent index summary: \(summary.trimmingCharacters(in: .whitespacesAndNewlines))")
        if let object = try? JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any],
           let files = object["files"] as? Int, let classified = object["classified"] as? Int, files > 0 {
            report.add(SuiteRow(key: "classificationsPerFileCold", label: "classifications per file, cold index (the run's own count)",
                                unit: "×", docent: Double(classified) / Double(files), goal: 1))
        }
        report.add(SuiteRow(key: "coldIndexSeconds", label: "Docent cold index", unit: "s",
                            docent: Measure.median(cold.map(\.seconds)), floor: floors.libmagicP2, floorLabel: "file -P2",
                            recoll: recoll?.coldSeconds, goal: 20))  // issue 19: near the PDF floor
        let reindex = try (0..<runs).map { _ in
            let result = try Spawn.run([docent.binary, "index", corpus], environment: docent.environment)
            guard result.status == 0 else { throw BenchError("docent index (no change) exited with \(result.status)") }
            return result.seconds
        }
        log("docent no-change re-index: \(reindex.map(fmt).joined(separator: ", ")) s")
        report.add(SuiteRow(key: "reindexSeconds", label: "Docent re-index, nothing changed", unit: "s",
                            docent: Measure.median(reindex), floor: floors.lstat, floorLabel: "lstat",
                            recoll: recoll?.reindexSeconds, goal: 3 * floors.lstat))
        report.add(SuiteRow(key: "coldPeakTreeMB", label: "peak memory, cold index (PSS, all processes)", unit: "MB",
                            docent: Measure.median(cold.compactMap(\.peakTreePSSMB)), recoll: recoll?.peakTreeMB, goal: 150))
        report.add(SuiteRow(key: "coldLargestProcessMB", label: "peak memory, cold index (largest process RSS)", unit: "MB",
                            docent: Measure.median(cold.map(\.maxRSSMB)), recoll: recoll?.largestProcessMB))
        let size = Self.size(ofFilesAt: docent.indexPath, suffixes: ["", "-wal", "-shm"])
        report.add(SuiteRow(key: "indexMB", label: "index size", unit: "MB", docent: size,
                            recoll: recoll?.indexMB, goal: recoll.map { $0.indexMB / 2 }))
    }

    // MARK: Search

    func measureSearch(_ docent: DocentProcess, recoll: RecollFigures?, into report: inout SuiteReport) throws {
        for query in BenchQuery.all {
            var statuses: Set<Int32> = []
            let times = try (0..<searchRuns).map { _ in
                let result = try Spawn.run([docent.binary, "search", query.docent], environment: docent.environment)
                statuses.insert(result.status)
                return result.seconds * 1000
            }
            guard statuses.isSubset(of: [0, 1]) else { throw BenchError("docent search \(query.docent) exited with \(statuses)") }
            let median = Measure.median(times)
            log("docent search \(query.docent): \(fmt(median)) ms\(statuses == [1] ? " (no hits)" : "")")
            report.add(SuiteRow(key: "search.\(query.label)", label: "search, \(query.label): `\(query.docent)`", unit: "ms",
                                // Issue 19: at or under Recoll's time in the same run (15 ms without Recoll).
                                docent: median, recoll: recoll?.searchMilliseconds[query.label],
                                goal: recoll?.searchMilliseconds[query.label] ?? 15))
        }
        for query in BenchQuery.suggesting {
            let times = try (0..<searchRuns).map { _ in
                try Spawn.run([docent.binary, "search", query.docent] + query.arguments, environment: docent.environment).seconds * 1000
            }
            let median = Measure.median(times)
            log("docent search \(query.shown): \(fmt(median)) ms")
            report.add(SuiteRow(key: "search.\(query.label)", label: "search, \(query.label) (`--json`): `\(query.docent)`", unit: "ms",
                                docent: median, recoll: nil, goal: nil))
        }
    }

    /// The judged questions (`docent-bench relevance`, docs/Benchmarks.md), Recoll's beside
    /// when its index of the corpus was made in this run: a ranking that gets worse fails --check.
    func measureRelevance(_ docent: DocentProcess, recoll: RecollProcess?, into report: inout SuiteReport) throws {
        guard let judged = try? JudgedQuery.load(relevanceQuestions), !judged.isEmpty else {
            return report.notes.append("No judged questions at \(relevanceQuestions): relevance not measured.")
        }
        let root = URL(fileURLWithPath: corpus).standardizedFileURL.path
        let ours = JudgedQuery.Score.means(try RelevanceBench.scores(judged) { try RelevanceBench.docentRanking(docent, $0.query, root: root) })
        let recoll = try recoll.map { recoll in
            JudgedQuery.Score.means(try RelevanceBench.scores(judged) { try RelevanceBench.recollRanking(recoll, $0.query, root: root) })
        }
        log("relevance: success@3 \(fmt(ours["success@3"]!)), MRR@10 \(fmt(ours["MRR@10"]!))")
        report.add(SuiteRow(key: "relevance.success3", label: "relevance: the answer in the first three, \(judged.count) judged questions", unit: "",
                            docent: ours["success@3"], recoll: recoll?["success@3"], goal: 0.8, goalIsMinimum: true))
        report.add(SuiteRow(key: "relevance.mrr10", label: "relevance: mean reciprocal rank (MRR@10)", unit: "",
                            docent: ours["MRR@10"], recoll: recoll?["MRR@10"], goal: nil, goalIsMinimum: true))
    }

    // MARK: Live

    func measureLive(work: String, into report: inout SuiteReport) throws {
        let live = try LiveBench.parse([corpus, "--work", work, "--edits", String(edits), "--process-edits", "0", "--idle-seconds", "5"])
        let figures = try live.measure()
        report.add(SuiteRow(key: "writeToSearchableP50ms", label: "write → searchable under docent watch, p50", unit: "ms",
                            docent: figures["searchableP50ms"], goal: 50))
        report.add(SuiteRow(key: "writeToSearchableP99ms", label: "write → searchable under docent watch, p99", unit: "ms",
                            docent: figures["searchableP99ms"], goal: 250))
        report.add(SuiteRow(key: "watchIdleCPUPercent", label: "docent watch idle CPU (5 s)", unit: "%", docent: figures["idleCPUPercent"]))
        report.add(SuiteRow(key: "watchRSSMB", label: "docent watch resident memory, idle", unit: "MB", docent: figures["rssMB"]))
        report.notes.append("Recoll's real-time indexer (recollindex -m) waits 30 s by default before indexing a change; its latency is not measured here.")
    }

    // MARK: Scaling

    /// Indexes 1, 2 and 4 copies of the corpus (real copies, each its own root).
    func measureScaling(work: String, into report: inout SuiteReport) throws {
        let copies = (1...4).map { work + "/scale/copy\($0)" }
        for copy in copies where !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.createDirectory(atPath: work + "/scale", withIntermediateDirectories: true)
            _ = try Spawn.shell("cp -a '\(corpus)' '\(copy)'")
        }
        _ = try Spawn.shell("find '\(work)/scale' -type f -print0 | xargs -0 cat > /dev/null")
        var single: Double?
        for count in [1, 2, 4] {
            let docent = DocentProcess(work: work + "/scale-\(count)")
            let result = try Spawn.run([docent.binary, "index"] + copies.prefix(count) + ["--json"], environment: docent.environment,
                                       stdoutPath: docent.work + ".json", sampleMemory: true)
            guard result.status == 0 else { throw BenchError("docent index of \(count) copies exited with \(result.status)") }
            let summary = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: docent.work + ".json")))) as? [String: Any]
            let indexed = summary?["files"] as? Int ?? 0
            let perThousand = result.seconds / Double(max(indexed, 1)) * 1000
            log("\(count)× corpus: \(indexed) files in \(fmt(result.seconds)) s (\(fmt(perThousand)) s per 1,000 files), tree PSS \(fmt(result.peakTreePSSMB ?? 0)) MB")
            if count == 1 { single = perThousand }
            // Issue 19: per-file time within 10% of one copy's.
            report.add(SuiteRow(key: "scale\(count)SecondsPerThousand", label: "\(count)× corpus (\(indexed) files): seconds per 1,000 files, 1 run",
                                unit: "s", docent: perThousand, goal: count == 1 ? nil : single.map { $0 * 1.1 }))
            report.add(SuiteRow(key: "scale\(count)PeakMB", label: "\(count)× corpus: peak memory (PSS, all processes)", unit: "MB",
                                docent: result.peakTreePSSMB))
            try? FileManager.default.removeItem(atPath: docent.work)
        }
    }

    // MARK: Helpers

    func listFiles() throws -> [String] {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("docent-suite-list-\(getpid())").path
        defer { unlink(list) }
        let result = try Spawn.run(["find", corpus, "-type", "f"], stdoutPath: list)
        guard result.status == 0 else { throw ValidationError("cannot list \(corpus)") }
        return try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func size(ofFilesAt path: String, suffixes: [String]) -> Double {
        suffixes.reduce(0.0) { total, suffix in
            var status = stat()
            return total + (stat(path + suffix, &status) == 0 ? Double(status.st_size) / 1_000_000 : 0)
        }
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
    func fmt(_ d: Double) -> String { String(format: "%.3f", d) }
}

/// The corpus's file lists, newline- and NUL-separated, and its PDFs.
struct FileLists {
    let lines: String, nul: String, pdfNul: String
    let pdfs: [String]

    init(files: [String], work: String) throws {
        lines = work + "/files.lst"
        nul = work + "/files.lst0"
        pdfNul = work + "/pdfs.lst0"
        pdfs = files.filter { $0.lowercased().hasSuffix(".pdf") }
        try Data(files.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: lines))
        try Data(files.map { $0 + "\0" }.joined().utf8).write(to: URL(fileURLWithPath: nul))
        try Data(pdfs.map { $0 + "\0" }.joined().utf8).write(to: URL(fileURLWithPath: pdfNul))
    }
}
