import Dispatch
import FileAccess
import Foundation
import Index
import Logging
import Synchronization
import SystemPackage
import Watcher

/// `docent watch`: reconciles the index with the roots, then keeps it current from inotify
/// until stopped.
///
/// Two threads: the watcher's (reading events, coalescing) and the caller's (applying
/// settled changes to the index), joined by an inbox, so a long batch never stops events
/// from being read.
public final class WatchService: Sendable {
    public let roots: [FilePath]
    private let live: LiveIndexer
    private let previews: PreviewCache?
    private let watcher: Watcher
    private let logger: Logger
    private let inbox = ChangeInbox()
    private let stopped = Atomic<Bool>(false)
    private let reconciled = Atomic<Bool>(false)
    private let applying = Atomic<Bool>(false)
    /// How many changes the batch being applied holds: still pending until it is written (a
    /// status read while a failed batch was tried again said 0 changes kept).
    private let inHand = Atomic<Int>(0)
    private let status: Locked<WatchStatus>
    private let statusWrite = Locked(ContinuousClock.now)
    private let watcherDone = DispatchSemaphore(value: 0)
    private let onStatus: (@Sendable (WatchStatus) -> Void)?
    /// Wakes a pause after a storage failure early, when the service stops.
    private let pause = DispatchSemaphore(value: 0)
    /// Storage failures in a row (written by the applying thread).
    private let storageFailures = Atomic<Int>(0)
    /// Why work stops or waits: `docent pause`, the battery (see `reconsider()`).
    private let controls = Locked(Controls())
    /// Rescans put off while on battery.
    private let deferredRescans = Atomic<Int>(0)
    /// Whether a status write held back by the rate limit is scheduled.
    private let trailingWrite = Atomic<Bool>(false)
    private let settings: Settings
    private let power = PowerSource()

    /// Watches `roots` for `index`, keeping the entries of `previews` current too.
    public init(index: any IndexStore, roots: [FilePath], settings: Settings, previews: PreviewCache? = PreviewCache(),
                options: WatcherOptions = WatcherOptions(), logger: Logger,
                onStatus: (@Sendable (WatchStatus) -> Void)? = nil) throws {
        self.roots = roots
        self.onStatus = onStatus
        self.previews = previews
        self.logger = logger
        self.settings = settings
        let indexer = Indexer(index: index, settings: settings, previews: previews)
        live = LiveIndexer(indexer: indexer)
        status = Locked(WatchStatus(state: .starting, pending: 0, watchedDirectories: 0, unwatchedDirectories: [], overflows: 0,
                                   files: (try? index.count()) ?? 0, missingRoots: [], roots: roots.map(\.string),
                                   pid: getpid(), started: Date().timeIntervalSince1970, lastApplied: nil))
        status.withLock { $0.pollInterval = Double(options.pollInterval.components.seconds) }
        let inbox = self.inbox
        // The watcher reports through these closures; `self` is not complete yet, so they
        // reach the service through a box filled in below.
        let box = ServiceBox()
        watcher = try Watcher(roots: roots, exclusions: indexer.exclusions, options: options,
                              onChanges: { changes in inbox.add(changes) },
                              onStatistics: { statistics in box.service?.watcherReported(statistics) },
                              onWarning: { message in logger.warning("\(message)") })
        box.service = self
    }

    /// Runs until `stop()`: watches set up first, then the reconcile, then live changes.
    /// Paused (`docent pause`), nothing is read or compared; on battery (`battery: defer`), the
    /// reconcile and rescans wait for mains power while single changes are still applied.
    public func run() throws {
        watcher.setUp()
        let watcher = self.watcher, done = watcherDone
        let thread = Thread {
            watcher.run()
            done.signal()
        }
        thread.name = "docent-watcher"
        thread.start()
        defer {
            watcher.stop()
            done.wait()
            update { $0.state = .stopped }
        }
        let statistics = watcher.statistics
        logger.info("watching \(statistics.watchedDirectories) directories under \(roots.map(\.string).joined(separator: ", "))")
        reconsider()
        if settings.deferOnBattery, power.hasBattery {
            power.follow { [weak self] in self?.reconsider() }
        }
        // Cached previews of files that changed while nobody watched are made again.
        let refresher = previews.map {
            PreviewRefresher(cache: $0, opener: live.indexer.opener)
        }
        var held: [FileChange] = []  // rescans put off on battery
        while !stopped.load(ordering: .acquiring) {
            let (paused, onBattery) = controls.withLock { ($0.paused != nil, $0.onBattery) }
            if paused {
                refreshState()
                inbox.wait()  // `reconsider()` wakes it
                continue
            }
            if !reconciled.load(ordering: .acquiring), !onBattery {
                guard let summary = try retryingStorage({ try live.indexer.run(roots: roots.filter { (try? FileStatus.lstat($0))?.kind == .directory }) })
                else { return }
                logger.info("reconciled: \(summary.files) files, \(summary.indexed) read, \(summary.unchanged) unchanged, \(summary.moved) moved, \(summary.removed) removed in \(String(format: "%.2f", summary.seconds)) s")
                update { $0.files = (try? self.live.indexer.index.count()) ?? $0.files }
                if let refresher { log(refresher.apply(roots.map { .rescan($0) }), "cached previews checked") }
                reconciled.store(true, ordering: .releasing)
                continue
            }
            refreshState()
            if watcher.statistics.pending > 0 {
                // Changes settle in the watcher and may come to nothing (a file made and removed
                // within the settle time): look again shortly, so the state does not stay
                // "indexing" with nothing on its way. With nothing pending, wait for news alone.
                _ = inbox.wait(timeout: .now() + .milliseconds(250))
                if inbox.count == 0, held.isEmpty || onBattery { continue }
            } else if held.isEmpty || onBattery {
                inbox.wait()
            }
            if controls.withLock({ $0.paused != nil }) { continue }
            applying.store(true, ordering: .releasing)
            defer { applying.store(false, ordering: .releasing) }
            var changes = inbox.takeAll()
            if controls.withLock({ $0.onBattery }) {
                // Each directory's rescan is held once, however many polls or overflows asked for it.
                for change in changes { if case .rescan = change, !held.contains(change) { held.append(change) } }
                changes.removeAll { if case .rescan = $0 { true } else { false } }
            } else if !held.isEmpty {
                changes = held + changes
                held.removeAll()
            }
            deferredRescans.store(held.count, ordering: .releasing)
            guard !changes.isEmpty else { continue }
            inHand.store(changes.count, ordering: .releasing)
            refreshState()
            let applied: LiveSummary
            do {
                applied = try live.apply(changes)
                inHand.store(0, ordering: .releasing)
                if storageFailures.load(ordering: .acquiring) > 0 { recovered() }
            } catch let error as IndexError where error.isStorage {
                // Nothing of the failed batch was written (a transaction rolls back whole);
                // the changes wait in front of any newer ones and are tried again, later and later.
                inbox.putBack(changes)
                inHand.store(0, ordering: .releasing)
                waitAfterStorageFailure(error)
                inbox.wake()  // what was put back is due now, whether or not anything new came
                continue
            }
            logger.debug("applied \(changes.count) changes: \(applied.read) read, \(applied.removed) removed, \(applied.moved) moved")
            if let refresher { log(refresher.apply(changes), "cached previews") }
            update {
                $0.files = (try? self.live.indexer.index.count()) ?? $0.files
                $0.lastApplied = Date().timeIntervalSince1970
            }
        }
    }

    /// Where `docent pause` leaves its request (beside the index).
    private var pausePath: String { live.indexer.index.pausePath }

    /// Reads again whether to pause (`docent pause`'s request, until its time) and whether the
    /// machine is on battery, and acts on it: paused, the watcher stops reading events and
    /// indexing work stops at its next file; resumed, both go on from where they were.
    /// Called at start, on SIGUSR2 (`docent pause`/`resume` send it), at a pause's end, and
    /// when a power supply changes.
    public func reconsider() {
        var reason: String?
        if let request = PauseRequest.read(from: pausePath) {
            let now = Date().timeIntervalSince1970
            if let until = request.until {
                if until > now {
                    reason = "paused by `docent pause` until \(PauseRequest.clock(until))"
                    OwnThreads.after(.milliseconds(Int64((until - now) * 1000) + 50)) { [weak self] in self?.reconsider() }
                }
            } else {
                reason = "paused by `docent pause` (`docent resume` resumes)"
            }
        }
        let onBattery = settings.deferOnBattery && power.onBattery
        let before = controls.withLock { controls in
            defer { controls = Controls(paused: reason, onBattery: onBattery) }
            return controls
        }
        if reason != nil {
            live.indexer.gate.close()
            watcher.pause()
            HelperPool.hold(true)
        } else {
            HelperPool.hold(false)
            live.indexer.gate.open()
            watcher.resume()
        }
        if before.paused != reason { logger.info("\(reason ?? "resumed")") }
        if before.onBattery != onBattery {
            logger.info(onBattery ? "on battery: the reconcile and rescans wait for mains power" : "on mains power: deferred work goes on")
        }
        inbox.wake()
        refreshState()
    }

    /// Finishes the batch in hand and returns from `run()`.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        live.indexer.gate.open()  // work waiting at a pause finishes its file and stops
        watcher.stop()
        inbox.wake()
        pause.signal()
    }

    // MARK: A disk that takes no writes

    /// Runs `body` until the index's disk takes its writes: on a storage failure (full,
    /// read-only, over quota) it says so in the status and the log and tries again after
    /// a growing pause. Nil when stopped meanwhile.
    private func retryingStorage<T>(_ body: () throws -> T) throws -> T? {
        while !stopped.load(ordering: .acquiring) {
            do {
                let result = try body()
                if storageFailures.load(ordering: .acquiring) > 0 { recovered() }
                return result
            } catch let error as IndexError where error.isStorage {
                waitAfterStorageFailure(error)
            }
        }
        return nil
    }

    /// Records the failure (status "waiting", the problem, the pending changes kept) and
    /// waits 0.5 s, then 1, 2, 4 … up to 30 s, or until stopped.
    private func waitAfterStorageFailure(_ error: IndexError) {
        let failures = storageFailures.add(1, ordering: .acquiringAndReleasing).newValue
        let delay = min(30.0, 0.5 * pow(2.0, Double(min(failures - 1, 6))))
        let message = "\(error); \(inbox.count + watcher.statistics.pending) changes kept, trying again in \(String(format: "%g", delay)) s"
        if failures == 1 || delay >= 30 { logger.error("\(message)") } else { logger.warning("\(message)") }
        update {
            $0.state = .waiting
            $0.problem = message
            $0.pending = self.inbox.count + self.watcher.statistics.pending
        }
        _ = pause.wait(timeout: .now() + delay)
    }

    private func recovered() {
        let failures = storageFailures.exchange(0, ordering: .acquiringAndReleasing)
        logger.info("the index takes writes again after \(failures) failed attempts; catching up")
        update { $0.problem = nil }
    }

    private func log(_ summary: PreviewRefreshSummary, _ what: String) {
        guard summary != PreviewRefreshSummary() else { return }
        logger.debug("\(what): \(summary.regenerated) regenerated, \(summary.moved) moved, \(summary.removed) removed")
    }

    /// Where the status is published (beside the index).
    private var statusPath: String { live.indexer.index.watchStatusPath }

    fileprivate func watcherReported(_ statistics: WatcherStatistics) {
        update {
            $0.watchedDirectories = statistics.watchedDirectories
            $0.unwatchedDirectories = statistics.unwatchedDirectories.map(\.string)
            $0.overflows = statistics.overflows
            $0.missingRoots = statistics.missingRoots.map(\.string)
            $0.polled = statistics.polled
        }
        live.indexer.offline.withLock { $0 = Set(statistics.polled.filter { !$0.mounted }.map(\.path)) }
        refreshState()
    }

    /// Publishes the state (`WatchState.of`) and what waits.
    private func refreshState() {
        // What the state is made of is read under the status lock, so that of two threads
        // refreshing at once (the loop, and the watcher's thread reporting its statistics) the
        // later one writes what is true then. Read before the lock, the watcher thread's
        // refresh could see a batch still applying and land after the loop's own refresh once
        // it was done, leaving "indexing" with nothing pending while the loop waited for news.
        update { status in
            let busy = applying.load(ordering: .acquiring)
            let waiting = watcher.statistics.pending + inbox.count + inHand.load(ordering: .acquiring)
            let controls = self.controls.withLock { $0 }
            let reconciled = reconciled.load(ordering: .acquiring), held = deferredRescans.load(ordering: .acquiring)
            status.state = WatchState.of(paused: controls.paused != nil, storageFailing: storageFailures.load(ordering: .acquiring) > 0,
                                         reconciled: reconciled, onBattery: controls.onBattery, changesWaiting: waiting, applying: busy)
            status.deferred = nil
            if controls.onBattery, !reconciled || held > 0 {
                status.deferred = "on battery: " + [!reconciled ? "the reconcile with the disk" : nil, held > 0 ? "\(held) rescan\(held == 1 ? "" : "s")" : nil]
                    .compactMap { $0 }.joined(separator: " and ") + " wait for mains power"
            }
            status.pending = waiting
            status.paused = controls.paused
        }
    }

    /// Changes the status and writes it (and hands it to `onStatus`): at once when the state
    /// changes, else at most ten times a second. The write happens under the lock, so two threads can never leave an
    /// older status on disk after a newer one (nor share the temporary file).
    private func update(_ body: (inout WatchStatus) -> Void) {
        let path = statusPath
        status.withLock { status in
            let before = status.state
            body(&status)
            let now = ContinuousClock.now
            let due = statusWrite.withLock { last in
                guard status.state != before || now - last >= .milliseconds(100) else { return false }
                last = now
                return true
            }
            if due {
                status.write(to: path)
                onStatus?(status)
            } else if !trailingWrite.exchange(true, ordering: .acquiringAndReleasing) {
                // Held back by the rate limit: written a little later, so the last change is
                // never lost (a mount going offline right after a poll's write stayed unpublished).
                OwnThreads.after(.milliseconds(110)) { [weak self] in
                    guard let self else { return }
                    self.trailingWrite.store(false, ordering: .releasing)
                    // A stopped service's last word is already written (and a new one may own the file).
                    if !self.stopped.load(ordering: .acquiring) { self.update { _ in } }
                }
            }
        }
    }
}

/// What holds work back: a pause (its reason), the battery.
private struct Controls: Sendable {
    var paused: String?
    var onBattery = false
}

/// Settled changes on their way from the watcher's thread to the applying one.
private final class ChangeInbox: Sendable {
    private let changes = Locked<[FileChange]>([])
    private let signal = DispatchSemaphore(value: 0)

    var count: Int { changes.withLock { $0.count } }

    func add(_ new: [FileChange]) {
        changes.withLock { $0 += new }
        signal.signal()
    }

    /// Puts changes that could not be applied back in front of those that came since.
    func putBack(_ old: [FileChange]) {
        changes.withLock { $0 = old + $0 }
    }

    func takeAll() -> [FileChange] {
        changes.withLock { changes in
            defer { changes.removeAll() }
            return changes
        }
    }

    /// Waits for changes (or a wake-up).
    func wait() { signal.wait() }
    /// Waits for news until `deadline`; whether news came.
    func wait(timeout deadline: DispatchTime) -> Bool { signal.wait(timeout: deadline) == .success }
    func wake() { signal.signal() }
}

/// Lets the watcher's callbacks reach the service once it exists.
private final class ServiceBox: @unchecked Sendable {
    // Unchecked: written once in the service's initializer, before the watcher runs.
    weak var service: WatchService?
}
