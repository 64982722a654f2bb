import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench scale --postgres`: one PostgreSQL server (Debian's, PostgreSQL's default
/// settings, in a temporary directory) holding two hosts' trees of `files / 2` files each,
/// indexed at the same time by two `docent index` processes named as two hosts
/// (`DOCENT_HOST`); then each host's rows and bytes, the server's size, the suite's searches
/// over both hosts' rows, and the two watchers' start-up (a no-change reconcile each).
struct ScalePostgres: BenchOutput {
    let bench: ScaleBench
    let files: Int

    func measure() throws -> [String: Double] {
        let half = files / 2
        let trees = try ["a", "b"].enumerated().map { i, name in
            let root = bench.work + "/tree-\(half)-\(name)"
            let recipe = "files \(half) seed \(bench.seed &+ UInt64(i) &+ 1) corpus \(bench.corpus)\n"
            if (try? String(contentsOfFile: root + ".made", encoding: .utf8)) != recipe {
                log("making \(root) …")
                _ = try ScaleTree(root: root, files: half, seed: bench.seed &+ UInt64(i) &+ 1).make(corpus: bench.corpus)
                try recipe.write(toFile: root + ".made", atomically: true, encoding: .utf8)
            }
            return root
        }
        let server = try PostgresServer(settings: [])
        try server.createDatabase("scale")
        let config = bench.work + "/postgres-config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "index: \(server.address("scale"))\n".write(toFile: config + "/config.yaml", atomically: true, encoding: .utf8)
        let hosts = ["host-a", "host-b"].map { host in
            var docent = DocentProcess(work: bench.work + "/postgres-\(host)")
            docent.environment["DOCENT_CONFIG_DIR"] = config
            docent.environment["DOCENT_HOST"] = host
            return docent
        }
        var figures: [String: Double] = [:]

        // Both hosts index at once, as two machines' first `docent watch` would.
        let results = Mutex<[Int: SpawnResult]>([:])
        let start = ContinuousClock.now
        let threads = (0..<2).map { i in
            Thread {
                let result = try? Spawn.run([hosts[i].binary, "index", trees[i]], environment: hosts[i].environment, sampleMemory: true)
                results.withLock { $0[i] = result }
            }
        }
        threads.forEach { $0.start() }
        while results.withLock({ $0.count }) < 2 { usleep(100_000) }
        let wall = (ContinuousClock.now - start).seconds
        let done = results.withLock { $0 }
        guard done.values.allSatisfy({ $0.status == 0 }) else { throw BenchError("a host's docent index into PostgreSQL failed") }
        figures["pgColdSeconds"] = wall
        figures["pgColdSecondsPerThousand"] = wall / Double(files) * 1000
        figures["pgHostFilesPerSecond"] = Double(half) / (done.values.map(\.seconds).max() ?? wall)
        log("PostgreSQL, two hosts of \(half) files each at once: \(fmt(wall)) s (\(fmt(figures["pgColdSecondsPerThousand"]!)) s per 1,000 files)")

        let perHost = try server.psql("SELECT host, count(*), sum(pg_column_size(f.*)) FROM docent_files f GROUP BY host ORDER BY host", database: "scale")
        log("rows and bytes per host:\n\(perHost)")
        for line in perHost.split(separator: "\n") {
            let cells = line.split(separator: "|")
            if cells.count == 3, let rows = Double(cells[1]), let bytes = Double(cells[2]) {
                figures["pgRows.\(cells[0])"] = rows
                figures["pgRowBytes.\(cells[0])"] = bytes
            }
        }
        let size = try server.psql("SELECT pg_database_size('scale')", database: "scale")
        figures["pgDatabaseBytesPerFile"] = (Double(size) ?? 0) / Double(files)

        for (label, milliseconds) in try bench.searches(hosts[0]) { figures["pgSearch." + label] = milliseconds }

        // Each host's watcher: its start is a no-change reconcile against the server.
        for (i, docent) in hosts.enumerated() {
            let watcher = try docent.startWatch([trees[i]])
            figures["pgWatchStartSeconds.\(i)"] = try docent.waitUntilWatching(watcher)
            try docent.stop(watcher)
        }
        log("watchers started in \(fmt(figures["pgWatchStartSeconds.0"]!)) and \(fmt(figures["pgWatchStartSeconds.1"]!)) s")
        try server.stop()
        return figures
    }
}

extension ScalePostgres {
    /// The PostgreSQL figures beside SQLite's at the same size.
    static func table(_ figures: [String: Double], sqlite: [String: Double], files: Int) -> String {
        func f(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "" }
        var lines = ["| PostgreSQL, two hosts of \((files / 2).formatted()) files each | PostgreSQL | SQLite, \(files.formatted()) files | ratio |",
                     "|---|---:|---:|---:|",
                     "| cold index, both hosts at once: s per 1,000 files | \(f(figures["pgColdSecondsPerThousand"])) | \(f(sqlite["coldSecondsPerThousand"])) | |",
                     "| one host's files per second | \(f(figures["pgHostFilesPerSecond"])) | | |",
                     "| database bytes per file | \(Int(figures["pgDatabaseBytesPerFile"] ?? 0).formatted()) | \(Int(sqlite["indexBytesPerFile"] ?? 0).formatted()) | |"]
        for query in BenchQuery.all {
            let p = figures["pgSearch." + query.label], s = sqlite["search." + query.label]
            let ratio = p.flatMap { p in s.map { String(format: "%.2f×", p / $0) } } ?? ""
            lines.append("| search, \(query.label): `\(query.docent)` (ms) | \(f(p)) | \(f(s)) | \(ratio) |")
        }
        for host in ["host-a", "host-b"] {
            lines.append("| \(host): rows, row bytes (MB) | \(Int(figures["pgRows.\(host)"] ?? 0).formatted()), \(f((figures["pgRowBytes.\(host)"] ?? 0) / 1e6)) | | |")
        }
        lines.append("| watchers' start (no-change reconcile), s | \(f(figures["pgWatchStartSeconds.0"])), \(f(figures["pgWatchStartSeconds.1"])) | \(f(sqlite["watchStartSeconds"])) | |")
        return lines.joined(separator: "\n")
    }
}
