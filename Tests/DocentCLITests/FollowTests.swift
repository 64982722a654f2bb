import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The preview cache, `docent preview --follow` and `docent search --follow`, on real files,
/// real inotify and real `docent` processes.
@Suite("Previews cached and followed, live queries", .serialized)
final class FollowTests: WatchFixture {
    var cacheDirectory: String { dir.path + "/cache/docent/previews" }

    /// The cache's entries: previewed file → the entry's preview part.
    func cached() -> [String: String] {
        var out: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory)) ?? [] where name.hasSuffix(".json") {
            guard let text = try? String(contentsOfFile: cacheDirectory + "/" + name, encoding: .utf8),
                  let newline = text.firstIndex(of: "\n"),
                  let header = try? JSONSerialization.jsonObject(with: Data(text[..<newline].utf8)) as? [String: Any],
                  let encoded = header["path"] as? String, let bytes = Data(base64Encoded: encoded)
            else { continue }
            out[String(decoding: bytes, as: UTF8.self)] = String(text[text.index(after: newline)...])
        }
        return out
    }

    func preview(_ relative: String, _ extra: [String] = []) throws -> Docent.Result {
        try Docent.run(["preview", root + "/" + relative, "--format", "text"] + extra, environment: env)
    }

    @Test("docent preview keeps its previews in the cache and trusts them only while the file is unchanged")
    func previewCache() throws {
        try write("a.txt", "first words")
        #expect(try preview("a.txt").stdout.contains("first words"))
        let entry = try #require(cached()[root + "/a.txt"])
        #expect(entry.contains("first words"))

        // An entry is what is shown while the file's signature matches: alter it and see.
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory).first { $0.hasSuffix(".json") })
        let file = cacheDirectory + "/" + name
        try (try String(contentsOfFile: file, encoding: .utf8)).replacingOccurrences(of: "first words", with: "cached words")
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try preview("a.txt").stdout.contains("cached words"))
        #expect(try preview("a.txt", ["--no-cache"]).stdout.contains("first words"))

        try write("a.txt", "second words")  // the signature changes: made again, and kept
        #expect(try preview("a.txt").stdout.contains("second words"))
        #expect(cached()[root + "/a.txt"]?.contains("second words") == true)

        // The cache lies inside the indexed tree here: Docent never indexes its own files.
        var inside = env
        inside["XDG_CACHE_HOME"] = root + "/cache-here"
        #expect(try Docent.run(["preview", root + "/a.txt"], environment: inside).status == 0)
        #expect(try Docent.run(["index", root], environment: inside).status == 0)
        #expect(try Docent.run(["search", "in:" + root + "/cache-here", "--files"], environment: inside).stdout.isEmpty)
        #expect(try Docent.run(["search", "second", "--files"], environment: inside).stdout == root + "/a.txt\n")
    }

    @Test("docent watch keeps cached previews current: edits, atomic saves, renames, deletions, changes while down")
    func watchRefreshesCache() throws {
        try write("a.txt", "alpha one")
        try write("b.txt", "bravo")
        #expect(try preview("a.txt").status == 0)
        #expect(try preview("b.txt").status == 0)
        try start()
        #expect(try settledAndEqual())

        try write("a.txt", "alpha two")
        #expect(eventually { cached()[root + "/a.txt"]?.contains("alpha two") == true }, "\(log)")
        try write(".a.txt.tmp", "alpha three")
        #expect(rename(root + "/.a.txt.tmp", root + "/a.txt") == 0)
        #expect(eventually { cached()[root + "/a.txt"]?.contains("alpha three") == true }, "\(log)")

        try FileManager.default.moveItem(atPath: root + "/b.txt", toPath: root + "/c.txt")
        #expect(eventually { cached()[root + "/c.txt"]?.contains("bravo") == true && cached()[root + "/b.txt"] == nil }, "\(log)")

        try FileManager.default.removeItem(atPath: root + "/a.txt")
        #expect(eventually { cached()[root + "/a.txt"] == nil }, "\(log)")
        #expect(try stop() == 0)

        try write("c.txt", "charlie, changed while nobody watched")
        try start()
        #expect(eventually { cached()[root + "/c.txt"]?.contains("charlie") == true }, "\(log)")
        #expect(Set(cached().keys) == [root + "/c.txt"])
    }

    /// Regression: the watcher remade cached previews of isolated types (PDF, archives, mail,
    /// media) in its own process, outside the helper and its budgets.
    @Test("docent watch remakes a cached PDF preview in the helper: a crash there costs the entry, not the watcher")
    func previewRefreshIsIsolated() throws {
        try FileManager.default.copyItem(atPath: "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", toPath: root + "/crash.pdf")
        #expect(try preview("crash.pdf").status == 0)
        #expect(cached()[root + "/crash.pdf"] != nil)
        try start(["DOCENT_HELPER_FAULT": "crash:crash.pdf"])
        #expect(try settledAndEqual())

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/crash.pdf"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n% appended\n".utf8))
        try handle.close()
        // In the helper, the fault strikes and the entry goes; in the watcher it would have been remade.
        #expect(eventually { cached()[root + "/crash.pdf"] == nil }, "\(log)")
        try write("after.txt", "zeppelin")
        #expect(eventually { (try? search("zeppelin")) == ["after.txt"] }, "\(log)")
        #expect(watcher?.isRunning == true)
        #expect(try stop() == 0)
    }

    @Test("docent preview --follow prints the preview again at each change: writes, atomic saves, removal and return")
    func previewFollow() throws {
        try write("f/doc.txt", "alpha")
        let path = root + "/f/doc.txt"
        let follow = try StreamingProcess(["preview", path, "--follow", "--format", "json"], environment: env)
        func text(_ object: [String: Any]?) -> String {
            guard let elements = (object?["preview"] as? [String: Any])?["elements"] as? [[String: Any]] else { return "" }
            return elements.compactMap { $0["text"] as? String }.joined()
        }
        let first = follow.nextObject()
        #expect(text(first) == "alpha" && first?["event"] as? String == "preview")

        try write("f/doc.txt", "bravo")
        #expect(text(follow.nextObject()) == "bravo")
        try write("f/.doc.txt.swp", "charlie")
        #expect(rename(root + "/f/.doc.txt.swp", path) == 0)
        #expect(text(follow.nextObject()) == "charlie")
        // A touch changes nothing the preview shows: the next line is the next real change.
        #expect(utime(path, nil) == 0)
        try write("f/doc.txt", "delta")
        #expect(text(follow.nextObject()) == "delta")

        try FileManager.default.removeItem(atPath: path)
        #expect(follow.nextObject()?["event"] as? String == "removed")
        try write("f/doc.txt", "echo")
        #expect(text(follow.nextObject()) == "echo")

        try FileManager.default.removeItem(atPath: root + "/f")  // its directory goes and comes back
        #expect(follow.nextObject()?["event"] as? String == "removed")
        try write("f/doc.txt", "foxtrot")
        #expect(text(follow.nextObject()) == "foxtrot")
        follow.stop()
    }

    @Test("docent search --follow --json under a running watcher: added and removed events as files change")
    func searchFollowWithWatcher() throws {
        try write("one.txt", "green tea")
        try write("two.txt", "black coffee")
        try start()
        #expect(try settledAndEqual())
        let follow = try StreamingProcess(["search", "tea", "--follow", "--json"], environment: env)
        let first = follow.nextObject()
        #expect(first?["event"] as? String == "match" && first?["path"] as? String == root + "/one.txt")

        try write("three.txt", "white tea leaves")                                  // new file matches
        let added = follow.nextObject()
        #expect(added?["event"] as? String == "added" && added?["path"] as? String == root + "/three.txt")
        #expect((added?["snippet"] as? String)?.contains("[tea]") == true)

        try write("two.txt", "black tea now")                                       // an edit makes it match
        #expect(follow.nextObject()?["path"] as? String == root + "/two.txt")
        try write("one.txt", "green juice")                                         // an edit makes it stop
        let removed = follow.nextObject()
        #expect(removed?["event"] as? String == "removed" && removed?["path"] as? String == root + "/one.txt")

        try FileManager.default.moveItem(atPath: root + "/three.txt", toPath: root + "/four.txt")   // renamed: one out, one in
        let pair = [follow.nextObject(), follow.nextObject()].map { "\($0?["event"] ?? "?") \($0?["path"] ?? "?")" }
        #expect(Set(pair) == ["added \(root)/four.txt", "removed \(root)/three.txt"])
        #expect(follow.stop(SIGINT) == 0)
    }

    @Test("docent search --follow with no watcher running watches the remembered roots itself")
    func searchFollowStandalone() throws {
        try write("pot.txt", "a kettle on the stove")
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        let follow = try StreamingProcess(["search", "kettle", "--follow"], environment: env)
        #expect(follow.nextLine() == root + "/pot.txt")
        #expect(eventually { (try? self.status()["state"] as? String) == "watching" }, "a watcher runs inside the search")

        try write("new.txt", "another kettle")
        var line = follow.nextLine()
        while let next = line, next.hasPrefix("  ") { line = follow.nextLine() }  // the first hit's facts and snippet
        #expect(line == "+ " + root + "/new.txt")
        try FileManager.default.removeItem(atPath: root + "/pot.txt")
        #expect(follow.nextLine() == "- " + root + "/pot.txt")

        #expect(follow.stop(SIGTERM) == 0)
        #expect(try status()["state"] as? String == "stopped")
    }
}
