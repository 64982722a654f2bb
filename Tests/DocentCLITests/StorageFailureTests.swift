import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The index's disk refuses writes: the watcher keeps its changes, says so in `status`,
/// tries again later and catches up when the disk takes writes again; `docent index` stops
/// with a clear message and loses nothing.
@Suite("A full or read-only disk under the index", .serialized)
final class StorageFailureTests: WatchFixture {
    var data: String { dir.path + "/data" }

    /// A real full disk: the index on a 6 MiB tmpfs (needs root, as CI and these machines have).
    static var canMount: Bool {
        guard geteuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "docent-mount-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { rmdir(probe) }
        guard mount("tmpfs", probe, "tmpfs", 0, "size=1m") == 0 else { return false }
        umount(probe)
        return true
    }

    /// Fills the file system at `data` with a ballast file until it is full.
    func fill() throws -> String {
        let ballast = data + "/ballast"
        let fd = open(ballast, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x55, count: 64 << 10)
        while Glibc.write(fd, chunk, chunk.count) > 0 {}
        #expect(errno == ENOSPC)
        var small = [UInt8](repeating: 0x55, count: 512)
        while Glibc.write(fd, &small, small.count) > 0 {}
        return ballast
    }

    func state() throws -> (state: String, problem: String) {
        let status = try status()
        return ((status["state"] as? String) ?? "?", (status["problem"] as? String) ?? "")
    }

    @Test("Disk full during docent watch: changes kept, 'waiting' in status, caught up when space returns", .enabled(if: canMount))
    func fullDiskWhileWatching() throws {
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        #expect(mount("tmpfs", data, "tmpfs", 0, "size=6m") == 0)
        defer {
            _ = try? stop()
            umount2(data, Int32(MNT_DETACH))
        }
        for i in 0..<5 { try write("before/\(i).txt", "settled text \(i) larch") }
        try start()
        #expect(try settledAndEqual())

        let ballast = try fill()
        // New files while nothing can be written: each with a word of its own and enough text to need pages.
        for i in 0..<30 { try write("during/\(i).txt", "written while the disk was full: sequoia\(i) " + String(repeating: "bark ", count: 400)) }
        #expect(eventually { (try? self.state())?.state == "waiting" }, "\(log)")
        let (_, problem) = try state()
        #expect(problem.contains("full") && problem.contains("changes kept"), "\(problem)")
        #expect(try search("sequoia3").isEmpty)
        #expect(try status()["pending"] as? Int ?? 0 > 0)

        // docent index meanwhile: a clear message, exit 2, nothing half-written.
        let index = try Docent.run(["index", root], environment: env)
        #expect(index.status == 2 && index.stderr.contains("cannot be written") && index.stderr.contains("nothing was lost"), "\(index.stderr)")

        #expect(unlink(ballast) == 0)
        #expect(try settledAndEqual(60))
        #expect(try search("sequoia17") == ["during/17.txt"])
        #expect(try state().problem.isEmpty)
        #expect(log.contains("takes writes again"), "\(log)")
    }

    @Test("A disk that turns read-only (injected: the kernel refuses to remount an open file system) is waited out too")
    func readOnlyWhileWatching() throws {
        let control = dir.path + "/fault"
        try write("a.txt", "alder")
        try start(["DOCENT_INDEX_FAULT": control])
        #expect(try settledAndEqual())
        try "EROFS".write(toFile: control, atomically: true, encoding: .utf8)
        try write("b.txt", "birch")
        try FileManager.default.removeItem(atPath: root + "/a.txt")
        #expect(eventually { (try? self.state())?.problem.contains("read-only") == true }, "\(log)")
        #expect(try search("alder") == ["a.txt"], "the removal waits too")
        try FileManager.default.removeItem(atPath: control)
        #expect(try settledAndEqual(60))
        #expect(try search("birch") == ["b.txt"] && search("alder").isEmpty)
        #expect(try stop() == 0)
    }
}
