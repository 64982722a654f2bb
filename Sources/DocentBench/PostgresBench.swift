import ArgumentParser
import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench postgres`: Docent with its index on a local PostgreSQL server against the same
/// Docent with its SQLite file, in the same run: cold index, search per query class, size.
struct PostgresBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "A shared index on PostgreSQL against the SQLite file, in the same run: cold index, searches, size.",
        discussion: """
            Starts a private PostgreSQL server (Debian's initdb and pg_ctl, PostgreSQL's default settings, a free \
            port on 127.0.0.1) unless --address names a database, and prints a Markdown table.
            """
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "Cold index runs of each store; the median is reported.")
    var coldRuns = 1

    @Option(help: "Whole-process runs of each search query on each store; the median is reported.")
    var searchRuns = 11

    @Option(help: "Work directory (the SQLite index, state files); removed first.")
    var work = "/tmp/docent-bench-postgres"

    @Option(help: "A PostgreSQL database to use instead of a private server: emptied of Docent's tables first.")
    var address: String?

    func run() throws {
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work + "/config", withIntermediateDirectories: true)
        let server = address == nil ? try PostgresServer(settings: []) : nil
        if let server { log("PostgreSQL \(server.port) in \(server.directory)") }
        _ = try Spawn.shell("find '\(corpus)' -type f -print0 | xargs -0 cat > /dev/null")  // both read from the page cache
        let sqlite = DocentProcess(work: work + "/sqlite")
        let postgres = DocentProcess(work: work + "/postgres")
        var environment = postgres.environment
        environment["DOCENT_CONFIG_DIR"] = work + "/config"

        var figures: [(label: String, sqlite: Double, postgres: Double, unit: String, goal: String)] = []
        var cold: (sqlite: [SpawnResult], postgres: [SpawnResult]) = ([], [])
        for run in 1...coldRuns {
            try? FileManager.default.removeItem(atPath: sqlite.work)
            let s = try Spawn.run([sqlite.binary, "index", corpus], environment: sqlite.environment, sampleMemory: true)
            guard s.status == 0 else { throw BenchError("docent index (SQLite) exited with \(s.status)") }
            cold.sqlite.append(s)
            let database = try freshDatabase(server, run: run)
            try "index: \(database)\n".write(toFile: work + "/config/config.yaml", atomically: true, encoding: .utf8)
            let p = try Spawn.run([postgres.binary, "index", corpus], environment: environment, sampleMemory: true)
            guard p.status == 0 else { throw BenchError("docent index (PostgreSQL) exited with \(p.status)") }
            cold.postgres.append(p)
            log("cold index \(run): SQLite \(fmt(s.seconds)) s, PostgreSQL \(fmt(p.seconds)) s")
        }
        figures.append(("cold index", Measure.median(cold.sqlite.map(\.seconds)), Measure.median(cold.postgres.map(\.seconds)), "s",
                        "PostgreSQL ≤ 2× SQLite"))
        figures.append(("peak memory of Docent's processes (PSS; the server's own not counted)",
                        Measure.median(cold.sqlite.compactMap(\.peakTreePSSMB)), Measure.median(cold.postgres.compactMap(\.peakTreePSSMB)), "MB", ""))
        // Searches: whole processes, as a user runs them; PostgreSQL's go through docent-engine.
        for query in BenchQuery.all {
            var times: (sqlite: [Double], postgres: [Double]) = ([], [])
            for _ in 0..<searchRuns {
                times.sqlite.append(try Spawn.run([sqlite.binary, "search", query.docent], environment: sqlite.environment).seconds * 1000)
                let p = try Spawn.run([postgres.binary, "search", query.docent], environment: environment)
                guard p.status <= 1 else { throw BenchError("docent search \(query.docent) (PostgreSQL) exited with \(p.status)") }
                times.postgres.append(p.seconds * 1000)
            }
            let (s, p) = (Measure.median(times.sqlite), Measure.median(times.postgres))
            log("search \(query.docent): SQLite \(fmt(s)) ms, PostgreSQL \(fmt(p)) ms")
            figures.append(("search, \(query.label): `\(query.docent)`", s, p, "ms", "PostgreSQL p50 < 30 ms"))
        }
        let hits = try countHits(postgres, environment: environment, sqlite: sqlite)
        let size = try indexBytes(postgres, environment: environment)
        figures.append(("index size", SuiteBench.size(ofFilesAt: sqlite.indexPath, suffixes: ["", "-wal", "-shm"]), size / 1e6, "MB", ""))

        print("| what | SQLite | PostgreSQL | ratio | goal |")
        print("|---|---:|---:|---:|---|")
        for figure in figures {
            let ratio = figure.sqlite > 0 ? String(format: "%.2f×", figure.postgres / figure.sqlite) : "–"
            print("| \(figure.label) | \(SuiteReport.number(figure.sqlite, unit: figure.unit)) | "
                  + "\(SuiteReport.number(figure.postgres, unit: figure.unit)) | \(ratio) | \(figure.goal) |")
        }
        print("")
        print("Hits of the 11 queries (limit 20 each), the same files on both: \(hits.same) of \(hits.total).")
        print("Machine: \(SuiteReport.describeMachine()); corpus \(corpus); \(coldRuns) cold run(s), \(searchRuns) runs per search.")
    }

    /// An empty database for a cold index: a new one on the private server, or the given one
    /// emptied of Docent's tables.
    private func freshDatabase(_ server: PostgresServer?, run: Int) throws -> String {
        if let server {
            try server.createDatabase("bench\(run)")
            return server.address("bench\(run)")
        }
        let address = self.address!
        let drop = """
            DROP TABLE IF EXISTS docent_files, docent_roots, docent_meta, docent_type_ancestry, docent_migrations;
            DROP FUNCTION IF EXISTS docent_vector, docent_rank_vector, docent_head_vector, docent_words, docent_words_vector, docent_long_vector CASCADE;
            DROP TEXT SEARCH CONFIGURATION IF EXISTS docent; DROP TEXT SEARCH DICTIONARY IF EXISTS docent_stem;
            """
        let result = try Spawn.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", address, "-c", drop])
        guard result.status == 0 else { throw BenchError("cannot empty \(address) of Docent's tables (psql exited with \(result.status))") }
        return address
    }

    /// How many of the queries' first 20 hits are the same files on both stores.
    private func countHits(_ postgres: DocentProcess, environment: [String: String], sqlite: DocentProcess) throws -> (same: Int, total: Int) {
        var same = 0, total = 0
        for query in BenchQuery.all {
            let s = try lines(sqlite.binary, query.docent, environment: sqlite.environment)
            let p = try lines(postgres.binary, query.docent, environment: environment)
            same += s.intersection(p).count
            total += max(s.count, p.count)
        }
        return (same, total)
    }

    private func lines(_ binary: String, _ query: String, environment: [String: String]) throws -> Set<String> {
        let out = work + "/hits.txt"
        _ = try Spawn.run([binary, "search", query, "--files"], environment: environment, stdoutPath: out)
        return Set(((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init))
    }

    /// The size of Docent's tables with their indexes and TOAST, from `docent status --json`.
    private func indexBytes(_ docent: DocentProcess, environment: [String: String]) throws -> Double {
        let out = work + "/status.json"
        _ = try Spawn.run([docent.binary, "status", "--json"], environment: environment, stdoutPath: out)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        return (object?["indexBytes"] as? NSNumber)?.doubleValue ?? 0
    }

    func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
    func fmt(_ d: Double) -> String { String(format: "%.3f", d) }
}
