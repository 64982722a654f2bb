import Foundation

/// Recoll's figures for the same corpus and queries.
struct RecollFigures {
    var coldSeconds: Double
    var reindexSeconds: Double
    var peakTreeMB: Double
    var largestProcessMB: Double
    var indexMB: Double
    /// Median whole-process `recollq` time by query label.
    var searchMilliseconds: [String: Double]
}

/// Recoll (`recollindex`, `recollq`) with its own configuration directory in `work`, indexing
/// only the corpus with its defaults otherwise.
struct RecollProcess {
    let work: String
    let corpus: String

    /// Nil when Recoll is not installed.
    init?(work: String, corpus: String) {
        guard access("/usr/bin/recollindex", X_OK) == 0, access("/usr/bin/recollq", X_OK) == 0 else { return nil }
        self.work = work
        self.corpus = corpus
    }

    func measure(coldRuns: Int, runs: Int, searchRuns: Int, log: (String) -> Void) throws -> RecollFigures {
        var cold: [SpawnResult] = []
        for run in 1...coldRuns {
            try? FileManager.default.removeItem(atPath: work)
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            try "topdirs = \(corpus)\n".write(toFile: work + "/recoll.conf", atomically: true, encoding: .utf8)
            let result = try Spawn.run(["recollindex", "-c", work], sampleMemory: true)
            guard result.status == 0 else { throw BenchError("recollindex exited with \(result.status)") }
            cold.append(result)
            log("recoll cold index \(run): \(String(format: "%.1f", result.seconds)) s, largest process \(Int(result.maxRSSMB)) MB, tree PSS \(Int(result.peakTreePSSMB ?? 0)) MB")
        }
        let reindex = try (0..<runs).map { _ in try Spawn.run(["recollindex", "-c", work]).seconds }
        log("recoll no-change re-index: \(reindex.map { String(format: "%.2f", $0) }.joined(separator: ", ")) s")
        var search: [String: Double] = [:]
        for query in BenchQuery.all {
            // Twenty hits with their abstracts, as `docent search` prints twenty with snippets.
            let times = try (0..<searchRuns).map { _ in
                try Spawn.run(["recollq", "-c", work, "-n", "20", "-A", query.recoll]).seconds * 1000
            }
            search[query.label] = Measure.median(times)
            log("recollq \(query.recoll): \(String(format: "%.1f", search[query.label]!)) ms")
        }
        return RecollFigures(
            coldSeconds: Measure.median(cold.map(\.seconds)), reindexSeconds: Measure.median(reindex),
            peakTreeMB: Measure.median(cold.compactMap(\.peakTreePSSMB)), largestProcessMB: Measure.median(cold.map(\.maxRSSMB)),
            indexMB: Self.directorySizeMB(work + "/xapiandb"), searchMilliseconds: search)
    }

    static func directorySizeMB(_ path: String) -> Double {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: path) else { return .nan }
        return names.reduce(0.0) { total, name in
            var status = stat()
            return total + (lstat(path + "/" + name, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Double(status.st_size) / 1_000_000 : 0)
        }
    }
}
