import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite("A directory holding .noindex is left alone")
struct MarkerTests {
    @Test("docent index skips a marked directory and everything under it, and drops rows it had")
    func indexSkipsMarked() throws {
        let fixture = try WatchFixture()
        try fixture.write("open/note.txt", "lantern visible")
        try fixture.write("secret/diary.txt", "lantern hidden")
        try fixture.write("secret/deeper/more.txt", "lantern deeper")
        var r = try Docent.run(["index", fixture.root], environment: fixture.env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try fixture.search("lantern") == ["open/note.txt", "secret/deeper/more.txt", "secret/diary.txt"])

        try fixture.write("secret/.noindex", "")
        r = try Docent.run(["index", fixture.root], environment: fixture.env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try fixture.search("lantern") == ["open/note.txt"])
        #expect(try fixture.indexed() == [fixture.root + "/open/note.txt"], "the marker itself is not indexed either")

        // A marker in a root leaves the whole root out.
        try fixture.write(".noindex", "")
        r = try Docent.run(["index", fixture.root], environment: fixture.env)
        #expect(try fixture.indexed().isEmpty)
    }

    @Test("docent watch: a marker that appears takes the subtree's rows out within a second; removed, they return",
          arguments: TestStore.allCases)
    func watchFollowsMarkers(store: TestStore) throws {
        let fixture = try WatchFixture()
        try fixture.use(store)
        try fixture.write("open/note.txt", "harbour visible")
        for i in 0..<20 { try fixture.write("private/sub\(i % 3)/file\(i).txt", "harbour private \(i)") }
        try fixture.start()
        #expect(try fixture.settledAndEqual())
        #expect(try fixture.search("harbour").count == 21)

        let started = Date()
        try fixture.write("private/.noindex", "")
        let gone = try fixture.eventually(1) { try fixture.search("harbour") == ["open/note.txt"] }
        #expect(gone, "rows under the marked directory still there after \(Date().timeIntervalSince(started)) s\n\(fixture.log)")

        // Changes under the marked directory are not followed; elsewhere they are.
        try fixture.write("private/sub0/new.txt", "harbour new while marked")
        try fixture.write("private/sub9/also.txt", "harbour new directory while marked")
        try fixture.write("open/second.txt", "harbour second")
        #expect(try fixture.eventually { try fixture.search("harbour") == ["open/note.txt", "open/second.txt"] })
        // A file moved out of the marked directory arrives; one moved in leaves.
        try FileManager.default.moveItem(atPath: fixture.root + "/private/sub1/file1.txt", toPath: fixture.root + "/open/file1.txt")
        try FileManager.default.moveItem(atPath: fixture.root + "/open/second.txt", toPath: fixture.root + "/private/second.txt")
        #expect(try fixture.eventually { try fixture.search("harbour") == ["open/file1.txt", "open/note.txt"] }, "\(fixture.log)")

        try FileManager.default.removeItem(atPath: fixture.root + "/private/.noindex")
        #expect(try fixture.eventually { try fixture.search("harbour").count == 24 }, "\(fixture.log)")
        #expect(try fixture.search("harbour").contains("private/sub0/new.txt"))
        #expect(try fixture.search("harbour").contains("private/second.txt"))
        // Watched again: a change under it is followed.
        try fixture.write("private/sub2/after.txt", "harbour after")
        #expect(try fixture.eventually { try fixture.search("harbour").contains("private/sub2/after.txt") })

        // A directory moved in with a marker inside stays out; a nested marker leaves its parent in.
        try fixture.write("../outside/kept/.noindex", "")
        try fixture.write("../outside/kept/inner.txt", "harbour outside")
        try FileManager.default.moveItem(atPath: fixture.dir.path + "/outside/kept", toPath: fixture.root + "/kept")
        try fixture.write("private/sub2/.noindex", "")
        #expect(try fixture.eventually { try !fixture.search("harbour").contains { $0.hasPrefix("private/sub2/") } })
        #expect(try fixture.settledAndEqualExcept(["private/sub2", "kept"]))
        #expect(try fixture.stop() == 0)
    }
}

extension WatchFixture {
    /// Settled, and the index holds exactly the files on disk outside `marked` directories.
    func settledAndEqualExcept(_ marked: [String]) throws -> Bool {
        let expected = { self.onDisk().filter { path in !marked.contains { path.hasPrefix(self.root + "/" + $0 + "/") } } }
        return try eventually(20) { try status()["state"] as? String == "watching" && indexed() == expected() }
    }
}
