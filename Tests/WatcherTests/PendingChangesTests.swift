import SystemPackage
import Testing
@testable import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// The coalescing rules, with time passed in: no clock, no disk.
@Suite("Pending changes: settling and merging")
struct PendingChangesTests {
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
    func changes(_ steps: [(Int, FileChange)], settledAt: Int) -> [FileChange] {
        var pending = PendingChanges(settle: .milliseconds(30), maximumDelay: .seconds(1))
        for (ms, change) in steps { pending.add(change, at: at(ms)) }
        return pending.takeSettled(at: at(settledAt))
    }

    @Test("Merging rules", arguments: [
        // many writes to one file: one change
        ([(0, FileChange.changed("/r/a")), (5, .changed("/r/a")), (10, .changed("/r/a"))], 100, [FileChange.changed("/r/a")]),
        // created then deleted within the delay: only a removal (a no-op for a file never indexed)
        ([(0, .changed("/r/tmp")), (5, .removed("/r/tmp"))], 100, [.removed("/r/tmp")]),
        // atomic save: temporary written, renamed over the document
        ([(0, .changed("/r/.doc.tmp")), (5, .moved(from: "/r/.doc.tmp", to: "/r/doc"))], 100, [.moved(from: "/r/.doc.tmp", to: "/r/doc")]),
        // renamed twice: one move from the first name
        ([(0, .moved(from: "/r/a", to: "/r/b")), (5, .moved(from: "/r/b", to: "/r/c"))], 100, [.moved(from: "/r/a", to: "/r/c")]),
        // renamed, then deleted: the row at the old name goes
        ([(0, .moved(from: "/r/a", to: "/r/b")), (5, .removed("/r/b"))], 100, [.removed("/r/b"), .removed("/r/a")]),
        // changes under a directory that is then removed are dropped
        ([(0, .changed("/r/d/x")), (1, .changed("/r/d/y")), (5, .removed("/r/d"))], 100, [.removed("/r/d")]),
        // changes under a renamed directory follow it, after the move
        ([(0, .changed("/r/d/x")), (5, .moved(from: "/r/d", to: "/r/e"))], 100, [.moved(from: "/r/d", to: "/r/e"), .changed("/r/e/x")]),
        // a file renamed inside a directory that is then renamed
        ([(0, .moved(from: "/r/d/x", to: "/r/d/y")), (5, .moved(from: "/r/d", to: "/r/e"))], 100,
         [.moved(from: "/r/d", to: "/r/e"), .moved(from: "/r/e/x", to: "/r/e/y")]),
        // not settled yet
        ([(0, .changed("/r/a")), (90, .changed("/r/a"))], 100, []),
    ] as [([(Int, FileChange)], Int, [FileChange])])
    func merging(steps: [(Int, FileChange)], settledAt: Int, expected: [FileChange]) {
        #expect(changes(steps, settledAt: settledAt) == expected)
    }

    @Test("A burst of atomic saves and deletions of files: each merged as one file's change, nothing else waiting touched")
    func fileBurst() {
        var pending = PendingChanges(settle: .milliseconds(30), maximumDelay: .seconds(1))
        for i in 0..<3000 {
            pending.add(.changed(FilePath("/r/d\(i % 30)/.tmp\(i)")), at: at(0))
            pending.add(.moved(from: FilePath("/r/d\(i % 30)/.tmp\(i)"), to: FilePath("/r/d\(i % 30)/\(i).txt")), at: at(0), isDirectory: false)
        }
        for i in 0..<1000 { pending.add(.removed(FilePath("/r/d\(i % 30)/\(i).txt")), at: at(1), isDirectory: false) }
        let settled = pending.takeSettled(at: at(100))
        // A renamed file then deleted: its new and its old name go (the rule above).
        let removed = settled.filter { if case .removed = $0 { true } else { false } }.count
        let moved = settled.filter { if case .moved = $0 { true } else { false } }.count
        #expect(settled.count == 4000 && removed == 2000 && moved == 2000)
        let last = settled.contains(.moved(from: "/r/d25/.tmp2995", to: "/r/d25/2995.txt"))
        let first = settled.contains(.removed("/r/d0/.tmp0")) && settled.contains(.removed("/r/d0/0.txt"))
        #expect(last && first)
    }

    @Test("A file written continuously is handed on within the maximum delay")
    func continuousWriter() {
        var pending = PendingChanges(settle: .milliseconds(30), maximumDelay: .milliseconds(200))
        var handedOn = 0
        for ms in stride(from: 0, through: 1000, by: 10) {
            pending.add(.changed("/r/log"), at: at(ms))
            handedOn += pending.takeSettled(at: at(ms)).count
        }
        #expect(handedOn == 4)  // at 200, 410, 620 and 830 ms: not every 10 ms, and not never
    }

    @Test("Decoding a kernel buffer, a truncated tail ignored")
    func decoding() {
        var bytes: [UInt8] = []
        func event(_ wd: Int32, _ mask: UInt32, _ cookie: UInt32, _ name: String, padTo: Int) {
            withUnsafeBytes(of: wd) { bytes += $0 }
            withUnsafeBytes(of: mask) { bytes += $0 }
            withUnsafeBytes(of: cookie) { bytes += $0 }
            withUnsafeBytes(of: UInt32(padTo)) { bytes += $0 }
            var nameBytes = Array(name.utf8)
            nameBytes += [UInt8](repeating: 0, count: padTo - nameBytes.count)
            bytes += nameBytes
        }
        event(1, Inotify.create, 0, "a.txt", padTo: 16)
        event(2, Inotify.movedFrom | Inotify.isDirectory, 7, "dir", padTo: 16)
        event(-1, Inotify.overflow, 0, "", padTo: 0)
        bytes += [1, 2, 3]  // a partial header
        let events = bytes.withUnsafeBytes { InotifyEvent.decode($0) }
        #expect(events == [InotifyEvent(watch: 1, mask: Inotify.create, name: Array("a.txt".utf8)),
                           InotifyEvent(watch: 2, mask: Inotify.movedFrom | Inotify.isDirectory, cookie: 7, name: Array("dir".utf8)),
                           InotifyEvent(watch: -1, mask: Inotify.overflow)])
        #expect(events[1].isDirectory && !events[0].isDirectory)
    }
}
