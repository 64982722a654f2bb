import CSnippet
import Dispatch
import FileAccess
import Foundation
import GRDB
import Synchronization

/// Copies the write-ahead log into the database from a thread and a connection of its own,
/// so that a long-running writer (`docent watch`) never stops to do it between two commits.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: during a
/// burst of changes every few batches paid for copying the log and for two `fdatasync`s
/// (a fifth of the writer's time at 100,000 files). Here the commit only wakes this thread,
/// which checkpoints `PASSIVE`ly (never waiting for readers or for the writer) while the
/// writer goes on; the writer starts the log over once everything in it has been copied.
final class BackgroundCheckpoints: Sendable {
    /// Frames in the log that call for a checkpoint: 16 MB of 4 KB pages. A larger log than
    /// SQLite's 1,000 pages lets the pages a burst rewrites again and again be copied once.
    static let frames: Int32 = 4_000

    private let connection: DatabaseQueue
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// How many checkpoints ran (for the tests).
    let checkpoints = Atomic<Int>(0)

    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: configuration)
        OwnThreads.start("docent-checkpoint") { [self] in run() }
    }

    /// Called by the writer's commit hook: a checkpoint is due.
    func ready() { wake.signal() }

    private func run() {
        while true {
            wake.wait()
            while wake.wait(timeout: .now()) == .success {}  // commits meanwhile: one checkpoint
            if stopped.load(ordering: .acquiring) { break }
            // A failure (the disk, a damaged file) leaves the log as it is: the next commit
            // past the threshold tries again, and the writer meets the failure itself.
            _ = try? connection.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            checkpoints.add(1, ordering: .relaxed)
        }
        finished.signal()
    }

    /// Ends the thread after the checkpoint in hand, and closes its connection.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
        try? connection.close()
    }
}

extension FileIndex {
    /// Hands this index's checkpoints to a thread of their own (see `BackgroundCheckpoints`),
    /// or with false gives them back to the writer; `close()` does too. For a process that
    /// writes for a long time: `docent watch`.
    public func checkpointInBackground(_ enabled: Bool) throws(IndexError) {
        guard enabled else { return stopBackgroundCheckpoints() }
        try background.withLock { background throws(IndexError) in
            guard background == nil else { return }
            let checkpoints: BackgroundCheckpoints
            do { checkpoints = try BackgroundCheckpoints(path: path) } catch { throw IndexError(error, path: path) }
            // Retained while the writer's hook holds the pointer: released when it is taken back.
            let context = Unmanaged.passRetained(checkpoints)
            let handle = try writeOutsideTransaction { db in
                docent_hand_off_checkpoints(UnsafeMutableRawPointer(db.sqliteConnection), BackgroundCheckpoints.frames, { context in
                    Unmanaged<BackgroundCheckpoints>.fromOpaque(context!).takeUnretainedValue().ready()
                }, context.toOpaque())
            }
            if handle == nil { context.release() }
            background = (checkpoints, handle.map { UInt(bitPattern: $0) })
        }
    }

    /// Puts SQLite's own checkpoints back on the writer and ends the thread.
    func stopBackgroundCheckpoints() {
        guard let (checkpoints, handle) = background.withLock({ background in
            defer { background = nil }
            return background
        }) else { return }
        if let handle {
            let taken = (try? writeOutsideTransaction { db in
                docent_take_back_checkpoints(UnsafeMutableRawPointer(db.sqliteConnection), UnsafeMutableRawPointer(bitPattern: handle), 1000)
            }) != nil
            // The hook's reference, now that no commit can call it (kept if the writer could not
            // be reached: a closed pool calls no hook, and one object of a few bytes stays).
            if taken { Unmanaged.passUnretained(checkpoints).release() }
        }
        checkpoints.stop()
    }

    /// The checkpoints run in the background so far (nil when they are not).
    var backgroundCheckpoints: Int? { background.withLock { $0?.checkpoints.checkpoints.load(ordering: .relaxed) } }
}
