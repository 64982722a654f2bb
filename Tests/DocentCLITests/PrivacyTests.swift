import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The index and the cache hold the text of the user's files: they are the user's alone,
/// whatever the umask, and another user can read none of it.
@Suite("Private by default", .serialized)
final class PrivacyTests: WatchFixture {
    /// The permission bits of `path`, or nil when it does not exist.
    func mode(_ path: String) -> Int? {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_mode & 0o7777) : nil
    }

    /// Runs a command through `sh` with umask 000: the most open a user's shell can be.
    let openUmask = ["/bin/sh", "-c", "umask 000; exec \"$@\"", "sh"]

    @Test("With umask 000, every directory Docent makes is 0700 and every file 0600 (index, WAL, SHM, lock, status, cache)")
    func modesWhateverTheUmask() throws {
        try write("notes/a.txt", "a private thought about marmalade")
        var r = try Docent.run(["index", root], environment: env, wrapper: openUmask)
        #expect(r.status == 0, "\(r.stderr)")
        r = try Docent.run(["preview", root + "/notes/a.txt"], environment: env, wrapper: openUmask)
        #expect(r.status == 0, "\(r.stderr)")
        // A watcher holds the database open: its WAL, SHM, lock and status files exist meanwhile.
        let umaskBefore = umask(0)  // inherited by the watcher
        try start(arguments: ["watch", root])
        umask(umaskBefore)
        try write("notes/b.txt", "marmalade again")
        #expect(eventually { (try? self.search("marmalade")) == ["notes/a.txt", "notes/b.txt"] }, "\(log)")
        let index = dir.path + "/data/docent/index.sqlite"
        for file in [index, index + "-wal", index + "-shm", index + ".lock", index + ".watch.json", index + ".roots"] {
            #expect(mode(file) == 0o600, "\(file): \(mode(file).map { String($0, radix: 8) } ?? "missing")")
        }
        for directory in [dir.path + "/data", dir.path + "/data/docent", dir.path + "/cache", dir.path + "/cache/docent",
                          dir.path + "/cache/docent/previews"] {
            #expect(mode(directory) == 0o700, "\(directory)")
        }
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/cache/docent/previews")
        #expect(!entries.isEmpty && entries.allSatisfy { mode(dir.path + "/cache/docent/previews/" + $0) == 0o600 })
        #expect(try stop() == 0)
    }

    @Test("An index made before, with looser modes, is made private on its next use and it is said once")
    func looseIndexTightened() throws {
        try write("a.txt", "quince")
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        let index = dir.path + "/data/docent/index.sqlite"
        #expect(chmod(index, 0o644) == 0 && chmod(dir.path + "/data/docent", 0o755) == 0)
        var r = try Docent.run(["search", "quince"], environment: env)
        #expect(r.status == 0)
        #expect(r.stderr.contains("made \(index) private (mode 0644 → 0600)"), "\(r.stderr)")
        #expect(r.stderr.contains("made \(dir.path)/data/docent private (mode 0755 → 0700)"), "\(r.stderr)")
        #expect(mode(index) == 0o600 && mode(dir.path + "/data/docent") == 0o700)
        r = try Docent.run(["search", "quince"], environment: env)
        #expect(r.status == 0 && r.stderr.isEmpty, "said once: \(r.stderr)")
    }

    /// Another user, for real: root runs the commands as `nobody` through setpriv(1).
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    static var canSwitchUser: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: asNobody[0]) }

    @Test("Another user can open neither the index nor the cache", .enabled(if: PrivacyTests.canSwitchUser))
    func otherUserCannotRead() throws {
        try write("a.txt", "a secret about the gooseberry")
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        #expect(try Docent.run(["preview", root + "/a.txt"], environment: env).status == 0)
        // The temporary directory itself is root's 0700: open the way down to the data so that
        // only the modes Docent chose stand between nobody and the index.
        #expect(chmod(dir.path, 0o755) == 0)
        let index = dir.path + "/data/docent/index.sqlite"
        for (tool, path) in [("/bin/cat", index), ("/bin/ls", dir.path + "/data/docent"), ("/bin/ls", dir.path + "/cache/docent/previews")] {
            let read = try runTool("/usr/bin/setpriv", Array(Self.asNobody.dropFirst()) + [tool, path])
            #expect(read.status != 0 && read.output.isEmpty, "\(path) was readable by another user")
        }
        let r = try Docent.run(["search", "gooseberry", "--index", index], environment: env, wrapper: Self.asNobody, executable: Docent.reachableByOthers)
        #expect(r.status == 2 && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    @Test("Files the indexing user cannot read are error rows: their text is never in the index", .enabled(if: PrivacyTests.canSwitchUser))
    func unreadableFilesLeaveNoText() throws {
        // nobody indexes a tree holding root's 0600 file, into an index of its own.
        try write("shared/open.txt", "elderflower cordial")
        try write("shared/secret.txt", "elderflower password hunter2")
        #expect(chmod(root + "/shared/secret.txt", 0o600) == 0)
        for path in [dir.path, root, root + "/shared"] { #expect(chmod(path, 0o755) == 0) }
        let home = dir.path + "/nobody"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        #expect(chown(home, 65534, 65534) == 0)
        let nobody = ["XDG_DATA_HOME": home + "/data", "XDG_CACHE_HOME": home + "/cache", "HOME": home]
        var r = try Docent.run(["index", root + "/shared"], environment: nobody, wrapper: Self.asNobody, executable: Docent.reachableByOthers)
        #expect(r.status == 0, "\(r.stderr)")
        r = try Docent.run(["search", "elderflower", "--files"], environment: nobody, wrapper: Self.asNobody, executable: Docent.reachableByOthers)
        #expect(r.stdout == root + "/shared/open.txt\n")
        r = try Docent.run(["search", "hunter2", "--files"], environment: nobody, wrapper: Self.asNobody, executable: Docent.reachableByOthers)
        #expect(r.status == 1 && r.stdout.isEmpty)
        r = try Docent.run(["status", "--errors"], environment: nobody, wrapper: Self.asNobody, executable: Docent.reachableByOthers)
        #expect(r.stdout.contains("secret.txt"), "\(r.stdout)")
    }
}
