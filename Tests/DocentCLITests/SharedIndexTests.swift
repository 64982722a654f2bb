import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One index on PostgreSQL for several hosts: `docent watch` on two hosts writing at once, each
/// owning its rows; searches over all of them; a server that restarts in the middle of a batch.
/// Hosts are told apart by `DOCENT_HOST`, as two machines would be by their names.
@Suite("A shared index on PostgreSQL, end to end", .serialized)
struct SharedIndexTests {
    /// A `docent watch` as one host, on its own root.
    final class Host: WatchFixture {
        let name: String
        let shared: [String: String]

        init(_ name: String, shared: [String: String]) throws {
            self.name = name
            self.shared = shared
            try super.init()
            storeEnvironment = shared.merging(["DOCENT_HOST": name]) { $1 }
        }

        /// This host's rows under its root, by searching with `host:`.
        func own() throws -> Set<String> {
            let r = try Docent.run(["search", "host:" + name, "in:" + root, "--files", "--limit", "1000000"], environment: env)
            return Set(r.stdout.split(separator: "\n").map { String($0) })
        }

        func settled(_ seconds: Double = 60) throws -> Bool {
            try eventually(seconds) { try status()["state"] as? String == "watching" && own() == onDisk() }
        }
    }

    /// A config directory naming `address`, for every host.
    static func sharedEnvironment(_ directory: TemporaryDirectory, address: String) throws -> [String: String] {
        try directory.write("config/config.yaml", "index: \(address)\n")
        return ["DOCENT_CONFIG_DIR": directory.path + "/config"]
    }

    @Test("Two watchers with different host names write at once; each owns its rows; a search spans both and names the other host")
    func twoHosts() throws {
        let config = try TemporaryDirectory()
        let address = try SharedPostgres.newDatabase()
        let shared = try Self.sharedEnvironment(config, address: address)
        let alpha = try Host("alpha", shared: shared), beta = try Host("beta", shared: shared)
        for host in [alpha, beta] { try host.write("seed.txt", "seed of \(host.name)") }
        try alpha.start()
        try beta.start()
        #expect(try alpha.settled() && beta.settled(), "\(alpha.log)\n\(beta.log)")
        // Both write at once: 300 files each, from two threads.
        let group = DispatchGroup()
        for host in [alpha, beta] {
            let root = host.root, name = host.name
            DispatchQueue.global().async(group: group) {
                for i in 0..<300 {
                    let directory = root + "/batch/\(i % 10)"
                    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    _ = FileManager.default.createFile(atPath: directory + "/\(i).txt", contents: Data("lantern \(name) \(i)\n".utf8))
                }
            }
        }
        group.wait()
        #expect(try alpha.settled() && beta.settled(), "\(alpha.log)\n\(beta.log)")
        #expect(try alpha.own().count == 301 && beta.own().count == 301)

        // A search spans both hosts; the other host's files are named host:path.
        let fromAlpha = try Docent.run(["search", "lantern", "--json", "--limit", "1000"], environment: alpha.env).jsonLines
        #expect(fromAlpha.count == 600)
        #expect(fromAlpha.filter { $0["host"] as? String == "beta" }.count == 300)
        #expect(fromAlpha.filter { $0["host"] == nil }.allSatisfy { ($0["path"] as? String)?.hasPrefix(alpha.root) == true })
        let text = try Docent.run(["search", "seed", "beta"], environment: alpha.env)
        #expect(text.stdout.contains("beta:" + beta.root + "/seed.txt"), "\(text.stdout)")
        // Beta's file previewed on alpha: what beta stored, marked as beta's.
        let preview = try Docent.run(["preview", "beta:" + beta.root + "/seed.txt", "--format", "json"], environment: alpha.env)
        let object = try #require(preview.jsonLines.first, "\(preview.stderr)")
        #expect(object["host"] as? String == "beta" && preview.stdout.contains("seed of beta") && preview.stdout.contains("not on this machine"))
        let missing = try Docent.run(["preview", "beta:" + beta.root + "/nothing.txt"], environment: alpha.env)
        #expect(missing.status == 2 && missing.stderr.contains("no such file of host beta"))
        let status = try Docent.run(["status"], environment: alpha.env).stdout
        #expect(status.contains("alpha 301") && status.contains("beta 301"), "\(status)")

        // Beta stops; its files vanish from disk; alpha reconciles beta's root as its own:
        // alpha holds no rows there, and beta's rows are untouched.
        #expect(try beta.stop() == 0)
        try FileManager.default.removeItem(atPath: beta.root + "/batch")
        let index = try Docent.run(["index", "--json", beta.root], environment: alpha.env)
        #expect(index.status == 0, "\(index.stderr)")
        #expect(try beta.own().count == 301, "beta's rows are beta's to change")
        let alphaThere = try Docent.run(["search", "host:alpha", "in:" + beta.root, "--files"], environment: alpha.env)
        #expect(alphaThere.stdout.split(separator: "\n").count == 1)  // seed.txt, alone left on disk
        // Beta comes back and catches up: its rows follow its disk.
        try beta.start()
        #expect(try beta.settled(), "\(beta.log)")
        #expect(try beta.own().count == 1)
        #expect(try alpha.own().count == 301)
        #expect(try alpha.stop() == 0 && beta.stop() == 0)
    }

    @Test("The server restarts in the middle of a batch: the watcher waits, catches up, nothing lost, no row twice")
    func serverRestart() throws {
        let server = try PostgresServer()
        try server.createDatabase()
        let config = try TemporaryDirectory()
        let shared = try Self.sharedEnvironment(config, address: server.address())
        let host = try Host("solo", shared: shared)
        for i in 0..<50 { try host.write("old/\(i).txt", "old \(i)") }
        try host.start()
        #expect(try host.settled(), "\(host.log)")
        // A large batch, and the server stopped as soon as the watcher is seen indexing it.
        let root = host.root
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for i in 0..<3000 {
                let directory = root + "/batch/\(i % 30)"
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                _ = FileManager.default.createFile(atPath: directory + "/\(i).txt",
                                                   contents: Data(("batch \(i) " + String(repeating: "words ", count: 50)).utf8))
            }
            written.signal()
        }
        #expect(try host.eventually { try host.status()["state"] as? String == "indexing" })
        try server.stop()
        written.wait()
        // While the server is down: changes keep coming.
        for i in 0..<20 { try FileManager.default.removeItem(atPath: root + "/old/\(i).txt") }
        for i in 20..<40 { try host.write("old/\(i).txt", "edited \(i) while the server was down") }
        sleep(2)  // the outage goes on for two seconds while changes wait: the point of the test, not a hope
        try server.start()
        #expect(try host.settled(180), "\(host.log)")
        #expect(try host.own().count == 3030)
        let rows = try server.psql("""
            SELECT count(*) - count(DISTINCT path), count(*) FILTER (WHERE content_type != 'public.folder') FROM docent_files WHERE host = 'solo'
            """)
        #expect(rows == "0|3030", "no path twice, and a row per file: \(rows)")
        let edited = try Docent.run(["search", "edited", "--files", "--limit", "100"], environment: host.env)
        #expect(edited.stdout.split(separator: "\n").count == 20)
        // Once seen failing under AddressSanitizer in CI, unexplained: the log (stderr too) says why.
        let status = try host.stop()
        #expect(status == 0, "\(host.log)")
    }

    @Test("docent search --follow on PostgreSQL: every host's commits reach a live query, another host's files named host:path; a restart waited out")
    func followAcrossHosts() throws {
        let server = try PostgresServer()
        try server.createDatabase()
        let config = try TemporaryDirectory()
        let shared = try Self.sharedEnvironment(config, address: server.address())
        let alpha = try Host("alpha", shared: shared), beta = try Host("beta", shared: shared)
        try alpha.write("one.txt", "green tea")
        try beta.write("two.txt", "black coffee")
        try alpha.start()
        try beta.start()
        #expect(try alpha.settled() && beta.settled(), "\(alpha.log)\n\(beta.log)")
        let live = try StreamingProcess(["search", "tea", "--follow", "--json"], environment: alpha.env)
        let lines = try StreamingProcess(["search", "tea", "--follow", "--files"], environment: alpha.env)
        let first = live.nextObject()
        #expect(first?["event"] as? String == "match" && first?["path"] as? String == alpha.root + "/one.txt" && first?["host"] == nil)
        #expect(lines.nextLine() == alpha.root + "/one.txt")

        try beta.write("three.txt", "white tea leaves")  // another host's file starts matching
        let added = live.nextObject(within: 30)
        #expect(added?["event"] as? String == "added" && added?["host"] as? String == "beta"
                && added?["path"] as? String == beta.root + "/three.txt", "\(String(describing: added))")
        #expect(lines.nextLine(within: 30) == "+ beta:" + beta.root + "/three.txt")
        try alpha.write("four.txt", "mint tea")  // this host's, shown with its snippet
        let own = live.nextObject(within: 30)
        #expect(own?["event"] as? String == "added" && own?["host"] == nil && (own?["snippet"] as? String)?.contains("[tea]") == true,
                "\(String(describing: own))")
        try FileManager.default.removeItem(atPath: beta.root + "/three.txt")
        let removed = live.nextObject(within: 30)
        #expect(removed?["event"] as? String == "removed" && removed?["host"] as? String == "beta"
                && removed?["path"] as? String == beta.root + "/three.txt", "\(String(describing: removed))")

        // The server restarts: the live query connects again and goes on hearing commits.
        try server.stop()
        sleep(1)  // an outage of a second, as a restart makes: the point of the test, not a hope
        try server.start()
        try beta.write("five.txt", "tea again")
        let after = live.nextObject(within: 90)
        #expect(after?["event"] as? String == "added" && after?["path"] as? String == beta.root + "/five.txt", "\(String(describing: after))\n\(beta.log)")
        #expect(live.stop() == 0 && lines.stop() == 0)
        #expect(try alpha.stop() == 0 && beta.stop() == 0)
    }

    @Test("docent serve on PostgreSQL: every host's hits, another host's file shown from the index (never this machine's file at its path), live results")
    func serveAcrossHosts() throws {
        let config = try TemporaryDirectory()
        let shared = try Self.sharedEnvironment(config, address: try SharedPostgres.newDatabase())
        let alpha = try Host("alpha", shared: shared), beta = try Host("beta", shared: shared)
        try alpha.write("mine.txt", "comets over alpha")
        try beta.write("theirs.txt", "comets seen from beta")
        #expect(try Docent.run(["index", alpha.root], environment: alpha.env).status == 0)
        #expect(try Docent.run(["index", beta.root], environment: beta.env).status == 0)
        // Beta's path on this machine now holds other bytes: they are this machine's, not beta's file.
        try beta.write("theirs.txt", "LOCAL BYTES")

        let server = try StreamingProcess(["serve", "--port", "0"], environment: alpha.env)
        let address = try #require(server.nextLine(within: 60))
        let match = try #require(address.firstMatch(of: /^http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64})$/))
        let http = RawHTTP(port: Int(match.1)!)
        let cookie = "docent-\(match.1)=\(match.2)"
        let page = try http.get("/api/search?q=comets", cookie: cookie).text
        #expect(page.contains(">" + alpha.root + "/mine.txt<") && page.contains(">beta:" + beta.root + "/theirs.txt<"), "\(page)")
        let pattern = try Regex("data-id=\"(\\d+)\"><a href=\"/doc/\\d+\">(?:(?!</li>).)*?>beta:")
        let id = try #require(page.firstMatch(of: pattern)).output[1].substring!
        let doc = try http.get("/doc/\(id)", cookie: cookie)
        #expect(doc.status == 200 && doc.text.contains("not on this machine") && doc.text.contains("comets seen from beta"), "\(doc.text)")
        #expect(!doc.text.contains("LOCAL BYTES") && !doc.text.contains("/raw/") && !doc.text.contains("/export/"))
        for target in ["/raw/\(id)", "/thumb/\(id)", "/picture/\(id)", "/export/\(id)?as=public.plain-text"] {
            let refused = try http.get(target, cookie: cookie)
            #expect(refused.status == 404 && !refused.text.contains("LOCAL BYTES"), "\(target)")
        }

        // Another host's commit reaches the live results.
        let results = try http.stream("/events/search?q=comets", cookie: cookie)
        #expect(results.next("ready") != nil, "the results stream never said it was following")
        try beta.write("later.txt", "comets again")
        #expect(try Docent.run(["index", beta.root], environment: beta.env).status == 0)
        let added = try #require(results.next("results"))
        #expect(added.contains(">beta:" + beta.root + "/later.txt<") && added.contains("class=\"new\""), "\(added)")
        #expect(server.stop() == 0)
    }

    @Test("docent index waits for a server that restarts mid-run; a password in the address is refused; an unreachable server is one clear line")
    func indexAndBadAddresses() throws {
        let server = try PostgresServer()
        try server.createDatabase()
        let dir = try TemporaryDirectory()
        for i in 0..<2000 { try dir.write("tree/\(i % 20)/\(i).txt", "river \(i) " + String(repeating: "stone ", count: 200)) }
        let env = ["XDG_DATA_HOME": dir.path + "/data", "XDG_CACHE_HOME": dir.path + "/cache"]
        let process = Process()
        process.executableURL = Docent.binary
        process.arguments = ["index", "--json", "--index", server.address(), dir.path + "/tree"]
        process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            .merging(["DOCENT_CONFIG_DIR": "/nonexistent/docent-test-config"]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Stopped once some batches are in, started again two seconds later.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (Int((try? server.psql("SELECT count(*) FROM docent_files")) ?? "0") ?? 0) < 200 { usleep(20_000) }
        try server.stop()
        sleep(2)  // an outage of two seconds in the middle of the run: the point of the test, not a hope
        try server.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: output, as: UTF8.self))")
        #expect(try server.psql("SELECT count(*), count(DISTINCT path) FROM docent_files WHERE size >= 0 AND content_type != 'public.folder'")
                == "2000|2000")
        let found = try Docent.run(["search", "--index", server.address(), "river", "--files", "--limit", "5000"], environment: env)
        #expect(found.stdout.split(separator: "\n").count == 2000)

        let password = try Docent.run(["search", "--index", "postgresql://docent:secret@127.0.0.1:\(server.port)/docent", "river"], environment: env)
        #expect(password.status == 2 && password.stderr.contains("~/.pgpass"), "\(password.stderr)")
        #expect(!password.stderr.contains("secret"))
        try server.stop()
        let down = try Docent.run(["search", "--index", server.address(), "river"], environment: env)
        #expect(down.status == 2 && down.stderr.contains("cannot be reached"), "\(down.stderr)")
        #expect(down.stderr.split(separator: "\n").count == 1)
    }
}
