import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Crash consistency: `docent index` and `docent watch` killed with SIGKILL at random moments
/// — in a batch commit, a migration, the VACUUM after one — while files change; after each
/// restart the index equals the file system: the same paths, the same signatures, the
/// current text.
@Suite("Killed at random moments, the index comes back equal to the files", .serialized)
final class ChaosTests: WatchFixture {
    var index: String { dir.path + "/data/docent/index.sqlite" }
    static let fileCount = 240

    /// Changes files under the root until stopped: rewrites (with a new token), creations,
    /// deletions and renames, a few hundred a second.
    final class Writer: @unchecked Sendable {
        // Unchecked: `root` is immutable; `stopped` is atomic; the thread owns its generator.
        let root: String
        let stopped = Atomic(true)
        let done = DispatchSemaphore(value: 0)
        init(root: String) { self.root = root }

        /// Starts changing files; `generation` numbers this run's writes from `first`, so a
        /// token is never written twice in a test (two files holding one would both match).
        func start(seed: UInt64, first: Int) {
            stopped.store(false, ordering: .releasing)
            Thread { [self] in
                var random = SplitMix(seed: seed)
                var step = first
                while !stopped.load(ordering: .acquiring) {
                    let i = Int(random.next() % UInt64(ChaosTests.fileCount))
                    let path = "\(root)/d\(i % 8)/f\(i).txt"
                    switch random.next() % 10 {
                    case 0: unlink(path)
                    case 1: rename(path, "\(root)/d\((i + 1) % 8)/f\(i).txt")  // moved out of its place
                    default: try? ChaosTests.text(i, generation: step).write(toFile: path, atomically: random.next() % 2 == 0, encoding: .utf8)
                    }
                    step += 1
                    usleep(2_000)
                }
                done.signal()
            }.start()
        }

        func stop() {
            stopped.store(true, ordering: .releasing)
            done.wait()
        }
    }

    static func text(_ i: Int, generation: Int) -> String {
        "file \(i) generation tok\(generation)x\(i) " + String(repeating: "chaff\(i % 17) ", count: 40 + i % 300) + "\n"
    }

    /// What the files table says: path → (size, modification time), read with SQLite's own tool.
    func rows() throws -> [String: [Int64]] {
        let script = """
            import sqlite3, json, sys
            c = sqlite3.connect('file:\(index)?mode=ro', uri=True)
            print(json.dumps({bytes(p).decode(): [s, m] for p, s, m in c.execute('SELECT path, size, modified FROM files')}))
            """
        let (status, output) = try runTool("/usr/bin/python3", ["-c", script])
        #expect(status == 0)
        return ((try? JSONSerialization.jsonObject(with: output)) as? [String: [NSNumber]])?.mapValues { $0.map(\.int64Value) } ?? [:]
    }

    /// The index equals the files: every path with its lstat size and mtime, and a sample's
    /// current token found in it.
    func expectEqualToDisk(_ context: String) throws {
        let stored = try rows()
        var disk: [String: [Int64]] = [:]
        for path in onDisk() {
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            disk[path] = [Int64(status.st_size), Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)]
        }
        #expect(stored == disk, "\(context): only in index \(Set(stored.keys).subtracting(disk.keys).sorted().prefix(3)), only on disk \(Set(disk.keys).subtracting(stored.keys).sorted().prefix(3)), differing \(disk.filter { stored[$0.key] != nil && stored[$0.key] != $0.value }.keys.sorted().prefix(3))")
        // A sample's current tokens, one search for all of them: each hit its file, holding its
        // own token (its snippet), no other file.
        let sample = try disk.keys.sorted().prefix(40).enumerated().filter({ $0.offset % 8 == 0 }).map(\.element).map { path in
            (path: path, token: String(try String(contentsOfFile: path, encoding: .utf8).split(separator: " ")[3]))
        }
        guard !sample.isEmpty else { return }
        let r = try Docent.run(["search", sample.map(\.token).joined(separator: " OR "), "--json", "--limit", "1000"], environment: env)
        let hits = r.jsonLines.map { (path: $0["path"] as? String ?? "", snippet: $0["snippet"] as? String ?? "") }
        #expect(hits.count == sample.count, "\(context): \(hits.count) hits for \(sample.count) tokens: \(r.stderr)")
        for (path, token) in sample {
            #expect(hits.contains { $0.path == path && $0.snippet.contains("[\(token)]") }, "\(context): \(token) → \(hits)")
        }
    }

    /// An index in the schema's first version (as Docent 0.1's first releases made it), with
    /// enough rows that migrating it (and the VACUUM after) takes a while to be killed in.
    func makeFirstVersionIndex() throws {
        try? FileManager.default.removeItem(atPath: dir.path + "/data")
        try FileManager.default.createDirectory(atPath: dir.path + "/data/docent", withIntermediateDirectories: true)
        try writeFirstVersionIndex(at: index, rows: """
            c.execute('BEGIN')
            c.execute('INSERT INTO roots VALUES (?, NULL)', (b'\(root)',))
            for i in range(6000):
                p = b'\(root)/old/gone%d.txt' % i
                c.execute('INSERT INTO files VALUES (?, ?, ?, ?, 1, ?, 10, 0, 0, "public.plain-text", NULL, NULL, NULL, NULL, NULL, NULL, 0)',
                          (i + 1, p, b'\(root)/old', 'gone%d.txt' % i, i))
                c.execute('INSERT INTO files_fts (rowid, name, title, body, meta, parts) VALUES (?, ?, "", ?, "", "")',
                          (i + 1, 'gone%d.txt' % i, ('old words %d ' % i) * 120))
            c.execute('COMMIT')
            """)
    }

    @Test("50 SIGKILLs of index and watch (in commits, migrations, VACUUM) while files change; each restart converges")
    func fiftyKills() throws {
        for i in 0..<Self.fileCount { try write("d\(i % 8)/f\(i).txt", Self.text(i, generation: 0)) }
        let writer = Writer(root: root)
        var random = SplitMix(seed: 0x4_2026)
        var killedMigrating = 0
        for round in 0..<50 {
            let migrating = round % 10 == 3
            if migrating { try makeFirstVersionIndex() }
            let watching = round % 2 == 1
            writer.start(seed: random.next(), first: round * 1_000_000)
            let process = Process()
            process.executableURL = Docent.binary
            process.arguments = watching ? ["watch", root] : ["index", root]
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
                .merging(["DOCENT_CONFIG_DIR": "/nonexistent/docent-test-config"]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(random.next() % (migrating ? 1_500_000 : 900_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            writer.stop()
            if migrating, process.terminationReason == .uncaughtSignal { killedMigrating += 1 }

            // The restart: the same command again, to completion (a watcher until settled).
            if watching {
                try start(arguments: ["watch", root])
                #expect(try settledAndEqual(60), "round \(round)")
                #expect(try stop() == 0)
            } else {
                let r = try Docent.run(["index", root], environment: env)
                #expect(r.status == 0, "round \(round): \(r.stderr)")
            }
            try expectEqualToDisk("round \(round)\(migrating ? " (migrating)" : "")")
        }
        #expect(killedMigrating > 0)
        let check = try Docent.run(["index", "--check"], environment: env)
        #expect(check.status == 0 && !check.stderr.contains("damaged"), "\(check.stderr)")
    }
}
