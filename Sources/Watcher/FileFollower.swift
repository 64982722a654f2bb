import Dispatch
import FileAccess
import Foundation
import Synchronization
public import SystemPackage

/// Wakes its caller whenever one of a few files may have changed: written, replaced by a
/// rename, removed, or come back — `tail -f` for `docent preview --follow` and for the
/// index under `docent search --follow`.
///
/// The same `Watcher` as `docent watch`, on the files' directories and nothing below them,
/// so an atomic save (a temporary file renamed over the old one), a deleted and recreated
/// directory and an overflowed queue are all seen.
public final class FileFollower: Sendable {
    public let files: [FilePath]
    private let watcher: Watcher
    private let signal = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// Follows `files` (absolute paths); `settle` is how long a file must be quiet first.
    public init(files: [FilePath], settle: Duration = .milliseconds(30)) throws(WatcherError) {
        self.files = files
        var options = WatcherOptions()
        options.recursive = false
        options.settle = settle
        let directories = Array(Set(files.map { $0.removingLastComponent() })).sorted { $0.string < $1.string }
        let (signal, followed) = (self.signal, files)
        watcher = try Watcher(roots: directories, exclusions: Exclusions(), options: options, onChanges: { changes in
            if changes.contains(where: { change in followed.contains { FileFollower.affects(change, $0) } }) { signal.signal() }
        })
        watcher.setUp()
        let (watcher, done) = (self.watcher, self.done)
        OwnThreads.start("docent-follow") {
            watcher.run()
            done.signal()
        }
    }

    /// Whether `change` may have touched `file`.
    static func affects(_ change: FileChange, _ file: FilePath) -> Bool {
        switch change {
        case .changed(let path): path == file
        case .removed(let path), .rescan(let path): file.isWithin(path)
        case .moved(let from, let to): file.isWithin(from) || file.isWithin(to)
        }
    }

    /// Blocks until a followed file may have changed (changes meanwhile count as one), or
    /// until `stop()`. False once stopped.
    public func wait() -> Bool {
        guard !stopped.load(ordering: .acquiring) else { return false }
        signal.wait()
        while signal.wait(timeout: .now()) == .success {}
        return !stopped.load(ordering: .acquiring)
    }

    /// Ends the watcher and wakes `wait()`.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        watcher.stop()
        done.wait()
        signal.signal()
    }
}
