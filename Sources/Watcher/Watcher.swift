#if canImport(Glibc)
import Glibc
#endif
import FileAccess
import Synchronization
public import SystemPackage

/// What the watcher reports about itself.
public struct WatcherStatistics: Sendable, Equatable {
    public var watchedDirectories = 0
    /// Directories the kernel's watch limit left unwatched (rescanned periodically instead):
    /// the first `listedUnwatched` in the order of their paths; `unwatchedCount` says how many.
    public var unwatchedDirectories: [FilePath] = []
    /// How many directories are unwatched (a tree far over the limit has a hundred thousand:
    /// listed whole, every status written would carry megabytes of them).
    public var unwatchedCount = 0
    /// The most unwatched directories listed.
    public static let listedUnwatched = 100
    /// Queue overflows met so far (each answered by a rescan).
    public var overflows = 0
    /// Changes seen but not yet handed on (waiting to settle, or a rename's other half).
    public var pending = 0
    /// Roots that do not exist now (watched for their return).
    public var missingRoots: [FilePath] = []
    /// Directories compared with the index at an interval (inotify cannot see their changes).
    public var polled: [PolledDirectory] = []
}

/// A directory `docent watch` compares with the index at an interval, and why.
public struct PolledDirectory: Sendable, Hashable, Codable {
    public var path: FilePath
    /// For people: "NFS (nfs4, server:/export)", "FUSE (fuse.sshfs, …)", "listed in poll.paths".
    public var reason: String
    /// False while unmounted: its rows are kept until it returns (a remount reads nothing again).
    public var mounted: Bool
    /// Listed in `poll.paths` (polled whatever its file system), not found by its file system.
    public var listed = false

    static let listedReason = "listed in poll.paths"

    public init(path: FilePath, reason: String, mounted: Bool, listed: Bool = false) {
        (self.path, self.reason, self.mounted, self.listed) = (path, reason, mounted, listed)
    }

    private enum CodingKeys: String, CodingKey { case path, reason, mounted }
}

/// Tuning, mostly for tests.
public struct WatcherOptions: Sendable {
    public var settle: Duration = .milliseconds(30)
    public var maximumDelay: Duration = .seconds(1)
    /// How often directories left unwatched by the watch limit are rescanned.
    public var unwatchedRescanInterval: Duration = .seconds(60)
    /// Behave as if the kernel's watch limit were this many watches: `ENOSPC` cannot be
    /// caused on purpose without changing a machine-wide sysctl, so tests fake it here.
    public var simulatedWatchLimit: Int?
    /// Behave once as if the kernel's event queue held only this many events and the reader
    /// had fallen behind: when the events read since the start pass this count, the rest of
    /// that read is dropped and an overflow reported, as the kernel does. (Counted across
    /// reads: a reader as quick as the writer never sees one large read, so a per-read limit
    /// made the overflow depend on the machine's speed.)
    public var simulatedQueueLimit: Int?
    /// How often directories on network and FUSE file systems (and `pollPaths`) are compared
    /// with the index.
    public var pollInterval: Duration = .seconds(300)
    /// Directories compared with the index every `pollInterval` whatever their file system.
    public var pollPaths: [FilePath] = []
    /// Whether directories under the roots are watched too. When false only the roots are:
    /// their subdirectories are reported as entries but never entered.
    public var recursive = true

    public init() {}
}

/// Watches directory trees with inotify and hands on settled `FileChange`s.
///
/// A recursive watch tree (one watch per directory, excluded directories never watched);
/// a new directory is watched first and listed second, so nothing created in it is missed;
/// renames paired by cookie; changes coalesced per path; a queue overflow answered by a
/// rescan of the roots (with backoff when overflows repeat); the watch limit answered by one
/// clear warning and periodic rescans of what could not be watched; a root that goes away
/// is watched for through its nearest ancestor and picked up when it returns.
///
/// Thread discipline: `setUp()` then `run()` (on any one thread at a time, in that order);
/// `stop()` and `statistics` from anywhere.
public final class Watcher: @unchecked Sendable {
    public let roots: [FilePath]
    public let exclusions: Exclusions
    public let options: WatcherOptions
    private let inotify: InotifyDescriptor
    private let wakeDescriptor: Int32
    private let wakeWriter: Int32
    private let stopped = Atomic<Bool>(false)
    private let paused = Atomic<Bool>(false)
    private let published = Locked(WatcherStatistics())
    private let onChanges: @Sendable ([FileChange]) -> Void
    private let onStatistics: @Sendable (WatcherStatistics) -> Void
    private let onWarning: @Sendable (String) -> Void

    // Loop state: touched by setUp() and run() only.
    /// Every decision: events in, changes and commands out (this class applies the commands).
    var decisions: WatchDecisions
    /// Events read so far, for `WatcherOptions.simulatedQueueLimit` (past it: done).
    private var simulatedBacklog = 0
    /// `/proc/self/mountinfo`, open for news of mounts (-1 when it cannot be read).
    var mountInfo: Int32 = -1

    public init(roots: [FilePath], exclusions: Exclusions, options: WatcherOptions = WatcherOptions(),
                onChanges: @escaping @Sendable ([FileChange]) -> Void,
                onStatistics: @escaping @Sendable (WatcherStatistics) -> Void = { _ in },
                onWarning: @escaping @Sendable (String) -> Void = { _ in }) throws(WatcherError) {
        self.roots = roots
        self.exclusions = exclusions
        self.options = options
        self.onChanges = onChanges
        self.onStatistics = onStatistics
        self.onWarning = onWarning
        inotify = try InotifyDescriptor()
        // A self-pipe: stop() writes a byte that ends the wait in poll().
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(call: "pipe", Errno(rawValue: errno)) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wakeDescriptor = ends[0]
        wakeWriter = ends[1]
        decisions = WatchDecisions(roots: roots, exclusions: exclusions, options: options)
    }

    deinit {
        close(wakeDescriptor)
        close(wakeWriter)
        if mountInfo >= 0 { close(mountInfo) }
    }

    /// What the watcher reports now.
    public var statistics: WatcherStatistics { published.withLock { $0 } }

    /// Watches every directory under the roots. Changes made from now on are reported, so a
    /// crawl that starts after this misses nothing.
    public func setUp() {
        mountInfo = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        decisions.followsMountTable = mountInfo >= 0
        apply(decisions.start())
        decisions.setMounts(Mount.current() ?? [], fileSystemKind: RemoteFileSystem.kind(of:), now: .now)
        publish()
    }

    /// Follows changes until `stop()`. Sleeps in `poll` while nothing happens.
    public func run() {
        // The mount table signals a change with POLLPRI (and POLLERR).
        var fds = [pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: mountInfo, events: Int16(POLLPRI), revents: 0)]
        while !stopped.load(ordering: .acquiring) {
            if paused.load(ordering: .acquiring) {
                // Paused: not a single read until resumed. The kernel keeps the events meanwhile;
                // if its queue overflows, the overflow is met on resuming and answered by a rescan.
                var wake = [fds[1]]
                _ = poll(&wake, 1, -1)
                drainWakeups()
                continue
            }
            let timeout = Self.milliseconds(until: decisions.nextDeadline)
            _ = poll(&fds, mountInfo >= 0 ? 3 : 2, timeout)
            if fds[1].revents != 0 { drainWakeups() }
            if stopped.load(ordering: .acquiring) { break }
            let now = ContinuousClock.now
            if mountInfo >= 0, fds[2].revents != 0, let all = Mount.current() {
                apply(decisions.mountsChanged(all, fileSystemKind: RemoteFileSystem.kind(of:), now: now))
            }
            var events = inotify.readEvents()
            if let limit = options.simulatedQueueLimit, simulatedBacklog <= limit {
                simulatedBacklog += events.count
                if simulatedBacklog > limit {
                    let kept = limit - (simulatedBacklog - events.count)
                    events = Array(events.prefix(kept)) + [InotifyEvent(watch: -1, mask: Inotify.overflow)]
                }
            }
            for event in events { apply(decisions.handle(event, now: now)) }
            apply(decisions.due(now: now))
            let settled = decisions.pending.takeSettled(at: ContinuousClock.now)
            if !settled.isEmpty { onChanges(settled) }
            publish()
        }
    }

    /// Stops reading events until `resume()` (`docent pause`): the watcher then costs nothing.
    public func pause() {
        paused.store(true, ordering: .releasing)
        wake()
    }

    /// Reads events again after `pause()`, from those the kernel kept meanwhile.
    public func resume() {
        paused.store(false, ordering: .releasing)
        wake()
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }

    private func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Ends `run()` after the event in hand.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        var one: UInt8 = 1
        _ = write(wakeWriter, &one, 1)
    }

    // MARK: - Timing

    /// `poll`'s timeout: -1 (wait for an event) without a deadline, else the milliseconds
    /// until it, rounded up.
    static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = deadline - ContinuousClock.now
        if left <= .zero { return 0 }
        let ms = left.components.seconds * 1000 + Int64((left.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return Int32(min(ms, Int64(Int32.max)))
    }

    private func publish() {
        let statistics = decisions.statistics
        let changed = published.withLock { current -> Bool in
            guard current != statistics else { return false }
            current = statistics
            return true
        }
        if changed { onStatistics(statistics) }
    }

    func warn(_ message: String) { onWarning(message) }
    var inotifyDescriptor: InotifyDescriptor { inotify }
}
