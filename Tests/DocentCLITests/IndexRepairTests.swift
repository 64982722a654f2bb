import FileAccess
import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A damaged index is found, said in one line by readers, and rebuilt from the roots by
/// writers; every case ends with an index equal to the files, with nothing lost.
@Suite("A damaged index is detected and rebuilt")
struct IndexRepairTests {
    let dir: TemporaryDirectory
    var root: String { dir.path + "/tree" }
    var env: [String: String] { ["XDG_DATA_HOME": dir.path + "/data"] }
    var index: String { dir.path + "/data/docent/index.sqlite" }
    static let fileCount = 120

    init() throws {
        dir = try TemporaryDirectory()
        // Each file has a word of its own; enough filler that the index spans many pages.
        for i in 0..<Self.fileCount {
            let filler = (0..<60).map { "w\(($0 * 7919 + i * 104_729) % 5003)" }.joined(separator: " ")
            try dir.write("tree/d\(i % 6)/f\(i).txt", "document \(i) holds \(Self.word(i)) among \(filler)\n")
        }
    }

    static func word(_ i: Int) -> String { "quark\(i)zed" }

    func docent(_ arguments: [String]) throws -> Docent.Result { try Docent.run(arguments, environment: env) }

    /// The reader's side: any exit but a crash; a failure is one line saying the index is damaged, without SQL.
    func expectReaderSaysDamageCleanly(_ r: Docent.Result, _ context: String) {
        #expect([0, 1, 2].contains(r.status), "\(context): exit \(r.status) \(r.stderr)")
        if r.status == 2 {
            let lines = r.stderr.split(separator: "\n").filter { !$0.contains("made ") }  // a tightening note may precede
            #expect(lines.count == 1 && lines[0].contains("damaged") && lines[0].contains("rebuild"), "\(context): \(r.stderr)")
            #expect(!r.stderr.contains("SELECT") && !r.stderr.contains("INSERT"), "\(context): SQL shown: \(r.stderr)")
        }
    }

    /// The index holds exactly the files on disk, each found by its own word, and a
    /// thorough check passes.
    func expectIndexEqualsDisk(_ context: String) throws {
        let listed = try docent(["search", "in:" + root, "--files", "--limit", "100000"])
        let expected = Set((0..<Self.fileCount).map { "\(root)/d\($0 % 6)/f\($0).txt" })
        #expect(Set(listed.stdout.split(separator: "\n").map(String.init)) == expected, "\(context): \(listed.stderr)")
        // A sample of files, each found by its word and by nothing else: one search for all the
        // words (a process each made this 18 processes, and the byte flips run it 50 times), each
        // hit its file, holding its own word (its snippet), no other file.
        let sample = Array(stride(from: 0, to: Self.fileCount, by: 7))
        let r = try docent(["search", sample.map(Self.word).joined(separator: " OR "), "--json", "--limit", "1000"])
        let hits = r.jsonLines.map { (path: $0["path"] as? String ?? "", snippet: $0["snippet"] as? String ?? "") }
        #expect(hits.count == sample.count, "\(context): \(hits.count) hits for \(sample.count) words: \(r.stderr)")
        for i in sample {
            let path = "\(root)/d\(i % 6)/f\(i).txt"
            #expect(hits.contains { $0.path == path && $0.snippet.contains("[\(Self.word(i))]") }, "\(context): \(Self.word(i)) → \(hits)")
        }
        let check = try docent(["index", "--check"])
        #expect(check.status == 0 && !check.stderr.contains("damaged"), "\(context): \(check.stderr)")
    }

    /// Reads, then writes, after `damage`: the reader stays clean, the writer repairs.
    func damageThenRepair(_ context: String, _ damage: () throws -> Void) throws {
        try damage()
        expectReaderSaysDamageCleanly(try docent(["search", Self.word(3)]), context + ", search")
        expectReaderSaysDamageCleanly(try docent(["status"]), context + ", status")
        let r = try docent(["index"])
        #expect(r.status == 0, "\(context): index exited \(r.status): \(r.stderr)")
        try expectIndexEqualsDisk(context)
    }

    func overwrite(at offset: Int, with bytes: [UInt8]) throws {
        let fd = open(index, O_WRONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(pwrite(fd, bytes, bytes.count, off_t(offset)) == bytes.count)
    }

    func size() -> Int {
        var status = stat()
        return stat(index, &status) == 0 ? Int(status.st_size) : 0
    }

    @Test("Zeroed pages (8 KB at a quarter, a half, three quarters): found, a copy kept, rebuilt")
    func zeroedPages() throws {
        #expect(try docent(["index", root]).status == 0)
        let length = size()
        try damageThenRepair("zeroed pages") {
            for fraction in [0.25, 0.5, 0.75] {
                try overwrite(at: Int(Double(length) * fraction) / 4096 * 4096, with: Array(repeating: 0, count: 8192))
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/data/docent")
        #expect(names.contains { $0.hasPrefix("index.sqlite.damaged-") }, "the damaged copy is kept for inspection: \(names)")
    }

    @Test("A truncated index and a zeroed header: rebuilt from the roots file")
    func truncatedAndHeader() throws {
        #expect(try docent(["index", root]).status == 0)
        try damageThenRepair("truncated") { #expect(truncate(index, off_t(size() / 2)) == 0) }
        try damageThenRepair("zeroed header") { try overwrite(at: 0, with: Array(repeating: 0, count: 100)) }
        // The header is gone: the roots could only come from index.sqlite.roots.
        #expect(try docent(["search", Self.word(5), "--files"]).stdout == "\(root)/d5/f5.txt\n")
    }

    @Test("A random byte changed in each of 50 places (one at a time): every case ends with a correct index")
    func fiftyByteFlips() throws {
        #expect(try docent(["index", root]).status == 0)
        let pristine = dir.path + "/pristine"
        try FileManager.default.createDirectory(atPath: pristine, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/data/docent")
        for name in names { try FileManager.default.copyItem(atPath: dir.path + "/data/docent/" + name, toPath: pristine + "/" + name) }
        var generator = SplitMix(seed: 0x15_2026)
        for case_ in 0..<50 {
            // Back to the sound index, its files as the last writer left them.
            try FileManager.default.removeItem(atPath: dir.path + "/data/docent")
            try FileManager.default.copyItem(atPath: pristine, toPath: dir.path + "/data/docent")
            let offset = Int(generator.next() % UInt64(size()))
            let byte = UInt8(truncatingIfNeeded: generator.next() % 255 + 1)
            try damageThenRepair("case \(case_): byte \(offset) ^ \(byte)") {
                let fd = open(index, O_RDWR)
                defer { close(fd) }
                var old: UInt8 = 0
                #expect(pread(fd, &old, 1, off_t(offset)) == 1)
                var new = old ^ byte
                #expect(pwrite(fd, &new, 1, off_t(offset)) == 1)
            }
        }
    }

    @Test("A write-ahead log from another database is moved aside unread")
    func foreignLog() throws {
        #expect(try docent(["index", root]).status == 0)
        // Another database's log, left as a crash leaves it (never checkpointed).
        let other = dir.path + "/other.sqlite"
        let script = """
            import sqlite3, shutil
            c = sqlite3.connect('\(other)', isolation_level=None)
            c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')
            c.execute('CREATE TABLE files (id INTEGER PRIMARY KEY, path BLOB)')
            for i in range(2000): c.execute('INSERT INTO files (path) VALUES (?)', (b'/elsewhere/%d' % i,))
            shutil.copy('\(other)-wal', '\(index)-wal')
            """
        #expect(try runTool("/usr/bin/python3", ["-c", script]).status == 0)
        let r = try docent(["index"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("was not left by Docent"), "\(r.stderr)")
        try expectIndexEqualsDisk("foreign log")
    }

    @Test("An index a killed watcher left, but sound, is checked and kept: nothing is read again")
    func killedButSound() throws {
        #expect(try docent(["index", root]).status == 0)
        // A watcher killed once it has settled leaves no clean-close record: the next writer
        // runs quick_check. (SQLite 3.40's quick_check reported a NULL in every row of a
        // WITHOUT ROWID table whose key is declared in another order than its columns; the
        // schema's v5 orders them alike — before it, every kill cost a full rebuild.)
        let watcher = Process()
        watcher.executableURL = Docent.binary
        watcher.arguments = ["watch", root, "--priority", "normal"]
        watcher.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            .merging(["DOCENT_CONFIG_DIR": "/nonexistent/docent-test-config"]) { $1 }
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        let deadline = Date().addingTimeInterval(30 * deadlineFactor)
        while Date() < deadline, try !docent(["status", "--json"]).stdout.contains("\"state\":\"watching\"") { usleep(50_000) }
        #expect(try docent(["status", "--json"]).stdout.contains("\"state\":\"watching\""))
        kill(watcher.processIdentifier, SIGKILL)
        watcher.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: index + ".clean"))
        let r = try docent(["index"])
        #expect(r.status == 0 && !r.stderr.contains("damaged"), "\(r.stderr)")
        #expect(r.stdout.contains("0 indexed, \(Self.fileCount) unchanged"), "\(r.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/data/docent")
        #expect(!names.contains { $0.contains(".damaged") }, "\(names)")
        try expectIndexEqualsDisk("killed but sound")
    }

    @Test("Rebuilds while other processes search: each succeeds, no search crashes, the index ends correct")
    func rebuildUnderReaders() throws {
        #expect(try docent(["index", root]).status == 0)
        // Renamed aside under searches, the index once failed to reopen (SQLITE_IOERR, one
        // rebuild in 40); emptied under a search's memory mapping, the search died of SIGBUS.
        let stop = Atomic(false), env = self.env
        let abnormal = Locked<[String]>([])  // (ThreadSanitizer cannot see Synchronization.Mutex on Linux)
        let readers = (0..<3).map { n in
            let done = DispatchSemaphore(value: 0)
            Thread {
                var i = n
                while !stop.load(ordering: .acquiring) {
                    let arguments = i % 6 == 5 ? ["status"] : ["search", Self.word(i % Self.fileCount), "--files"]
                    if let r = try? Docent.run(arguments, environment: env), ![0, 1, 2].contains(r.status) {
                        abnormal.withLock { $0.append("\(arguments) exited \(r.status): \(r.stderr.prefix(300))") }
                    }
                    i += 3
                }
                done.signal()
            }.start()
            return done
        }
        defer {  // (also when a round throws)
            stop.store(true, ordering: .releasing)
            readers.forEach { $0.wait() }
        }
        for round in 0..<40 {
            // Everything into the database file, then pages in its middle zeroed.
            let checkpoint = "import sqlite3; sqlite3.connect('\(index)').execute('PRAGMA wal_checkpoint(TRUNCATE)')"
            #expect(try runTool("/usr/bin/python3", ["-c", checkpoint]).status == 0)
            try overwrite(at: size() / 2 / 4096 * 4096, with: Array(repeating: 0, count: 16384))
            let r = try docent(["index", "--check"])
            #expect(r.status == 0 && r.stderr.contains("rebuilding it"), "round \(round): \(r.stderr)")
        }
        #expect(abnormal.withLock { $0 }.isEmpty, "\(abnormal.withLock { $0 })")
        try expectIndexEqualsDisk("after rebuilds, readers still searching")
    }

    @Test("A search that meets damage leaves word for the next index run, which checks and rebuilds")
    func readerFlagsDamage() throws {
        #expect(try docent(["index", root]).status == 0)
        // Every page's b-tree header but the schema's zeroed, so whatever the search reads is
        // found damaged. (Damage inside a page's cells can go unseen by a search — SQLite keeps
        // no page checksums — until a writer's check finds it.)
        let length = size()
        for page in stride(from: 4096, to: length, by: 4096) { try overwrite(at: page, with: Array(repeating: 0, count: 8)) }
        let search = try docent(["search", Self.word(9)])
        #expect(search.status == 2, "\(search.stdout)")
        expectReaderSaysDamageCleanly(search, "search")
        #expect(FileManager.default.fileExists(atPath: index + ".damaged"))
        let r = try docent(["index"])
        #expect(r.status == 0 && r.stderr.contains("rebuilding it"), "\(r.stderr)")
        try expectIndexEqualsDisk("flagged")
    }
}

/// The running watcher repairs: told by a search that met damage, or meeting it itself.
@Suite("A damaged index under a running docent watch", .serialized)
final class WatcherRepairTests: WatchFixture {
    @Test("A search that meets damage tells the running watcher, which rebuilds the index and goes on watching")
    func searchTellsWatcher() throws {
        for i in 0..<40 { try write("d\(i % 4)/f\(i).txt", "watched file \(i) holds lemur\(i)x " + String(repeating: "padding ", count: 200)) }
        try start()
        #expect(try settledAndEqual())
        let index = dir.path + "/data/docent/index.sqlite"
        // Everything into the database file first (a page in the log would hide the damage).
        let checkpoint = "import sqlite3; sqlite3.connect('\(index)').execute('PRAGMA wal_checkpoint(TRUNCATE)')"
        #expect(try runTool("/usr/bin/python3", ["-c", checkpoint]).status == 0)
        var status = stat()
        stat(index, &status)
        let fd = open(index, O_WRONLY)
        for page in stride(from: 4096, to: Int(status.st_size), by: 4096) { _ = pwrite(fd, [UInt8](repeating: 0, count: 8), 8, off_t(page)) }
        close(fd)
        let r = try Docent.run(["search", "lemur7x"], environment: env)
        #expect(r.status == 2 && r.stderr.contains("the running `docent watch` (pid"), "\(r.stderr)")
        #expect(eventually(60) { (try? self.search("lemur7x")) == ["d3/f7.txt"] }, "\(log)")
        #expect(log.contains("a copy is kept at"), "\(log)")
        try write("after.txt", "tapir")  // and it still watches
        #expect(try settledAndEqual())
        #expect(try search("tapir") == ["after.txt"])
        #expect(try stop() == 0)
    }
}
