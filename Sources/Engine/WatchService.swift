import CMalloc
import Dispatch
import FileAccess
import Foundation
package import Index
package import Logging
import Synchronization
package import SystemPackage
package import Watcher

/// `docent watch`: reconciles the index with the roots, then keeps it current from inotify
/// until stopped.
///
/// Two threads: the watcher's (reading events, coalescing) and the caller's (applying
/// settled changes to the index), joined by an inbox, so a long batch never stops events
/// from being read.
package final class WatchService: Sendable {
    /// Changes applied in one transaction at most: a burst becomes searchable a batch at a
    /// time, the first files while the last are still being written, instead of all at the end.
    package static let batchLimit = 256

    package let roots: [FilePath]
    private let live: LiveIndexer
    private let previews: PreviewCache?
    private let watcher: Watcher
    private let logger: Logger
    private let inbox = ChangeInbox()
    private let stopped = Atomic<Bool>(false)
    // Each part of the state has one writer: the loop's report the applying thread (after
    // each step of its `WatchLoop`), the controls `reconsider()`, the watcher's statistics
    // the watcher's thread. The status is composed from them under its lock.
    private let loopReport = Locked(WatchLoop.Report())
    private let controls = Locked(WatchControls())
    private let status: Locked<WatchStatus>
    private let throttle = Locked(StatusThrottle())
    private let watcherDone = DispatchSemaphore(value: 0)
    private let onStatus: (@Sendable (WatchStatus) -> Void)?
    /// Wakes a pause after a storage failure early, when the service stops.
    private let pause = DispatchSemaphore(value: 0)
    /// Whether a status write held back by the rate limit is scheduled.
    private let trailingWrite = Atomic<Bool>(false)
    private let settings: Settings
    private let power = PowerSource()

    /// Watches `roots` for `index`, keeping the entries of `previews` current too.
    package init(index: any IndexStore, roots: [FilePath], settings: Settings, previews: PreviewCache? = PreviewCache(),
                options: WatcherOptions = WatcherOptions(), logger: Logger,
                onStatus: (@Sendable (WatchStatus) -> Void)? = nil) throws {
        self.roots = roots
        self.onStatus = onStatus
        self.previews = previews
        self.logger = logger
        self.settings = settings
        let indexer = Indexer(index: index, settings: settings, previews: previews, upkeepWhileIdle: true)
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

    /// Runs until `stop()`: watches set up first, then the reconcile, then live changes, each
    /// step as `WatchLoop` decides it.
    package func run() throws {
        watcher.setUp()
        // Checkpoints beside the applying thread, not inside its commits (SQLite).
        let index = live.indexer.index
        do { try index.checkpointInBackground(true) } catch { logger.warning("\(error)") }
        let watcher = self.watcher, done = watcherDone
        OwnThreads.start("docent-watcher") {
            watcher.run()
            done.signal()
        }
        defer {
            try? index.checkpointInBackground(false)
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
        let refresher = previews.map { PreviewRefresher(cache: $0, opener: live.indexer.opener) }
        var loop = WatchLoop()
        var lastCount = ContinuousClock.now
        func publish() {
            loopReport.withLock { $0 = loop.report }
            refreshState()
        }
        while !stopped.load(ordering: .acquiring) {
            let controls = self.controls.withLock { $0 }
            switch loop.next(controls, inbox: inbox.count, settling: watcher.statistics.pending) {
            case .sleep:
                publish()
                inbox.wait()
            case .lookAgain(let delay):
                publish()
                inbox.wait(for: delay)
            case .reconcile:
                publish()
                guard let summary = try retryingStorage(&loop, { try live.indexer.run(roots: roots.filter { (try? FileStatus.lstat($0))?.kind == .directory }) })
                else { return }
                logger.info("reconciled: \(summary.files) files, \(summary.indexed) read, \(summary.unchanged) unchanged, \(summary.moved) moved, \(summary.removed) removed in \(String(format: "%.2f", summary.seconds)) s")
                update { $0.files = (try? self.live.indexer.index.count()) ?? $0.files }
                if let refresher { log(refresher.apply(roots.map { .rescan($0) }), "cached previews checked") }
                loop.reconciled()
                if summary.indexed + summary.removed + summary.moved > 0 { loop.wrote() }
                // The reconcile's lists of every row and every file (hundreds of MB at a million
                // files) are freed, but glibc keeps their pages: given back before watching idle.
                docent_trim_malloc()
            case .tidy:
                // Between two steps the loop looks at the inbox again: a change waits at most a step.
                do { loop.tidied(moreLeft: try live.indexer.index.tidyWhileIdle()) } catch {
                    logger.warning("\(error)")
                    loop.tidied(moreLeft: false)
                }
            case .applyBatch:
                let changes = loop.batch(from: inbox.take(upTo: Self.batchLimit), onBattery: controls.onBattery)
                guard !changes.isEmpty else { continue }
                loop.applying(changes.count)
                publish()
                defer {
                    loop.applying(0)
                    publish()
                }
                let applied: LiveSummary
                do {
                    applied = try live.apply(changes)
                    worked(&loop)
                    loop.wrote()
                } catch let error as IndexError where error.isStorage {
                    // Nothing of the failed batch was written (a transaction rolls back whole);
                    // the changes wait in front of any newer ones and are tried again, later and later.
                    inbox.putBack(changes)
                    loop.applying(0)
                    waitAfterStorageFailure(error, &loop)
                    continue
                }
                logger.debug("applied \(changes.count) changes: \(applied.read) read, \(applied.removed) removed, \(applied.moved) moved")
                if let refresher { log(refresher.apply(changes), "cached previews") }
                // Counting the rows costs a pass over an index of them (tens of ms at a million
                // files): once a second at most while a burst lasts, and when it is over.
                let recount = inbox.count == 0 || ContinuousClock.now - lastCount > .seconds(1)
                if recount { lastCount = .now }
                update {
                    if recount { $0.files = (try? self.live.indexer.index.count()) ?? $0.files }
                    $0.lastApplied = Date().timeIntervalSince1970
                }
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
    package func reconsider() {
        let now = Date().timeIntervalSince1970
        let (new, lookAgainAt) = WatchControls.of(PauseRequest.read(from: pausePath), now: now,
                                                  onBattery: settings.deferOnBattery && power.onBattery)
        if let lookAgainAt {
            OwnThreads.after(.milliseconds(Int64((lookAgainAt - now) * 1000))) { [weak self] in self?.reconsider() }
        }
        let before = controls.withLock { controls in
            defer { controls = new }
            return controls
        }
        if new.paused != nil {
            live.indexer.gate.close()
            watcher.pause()
            HelperPool.hold(true)
        } else {
            HelperPool.hold(false)
            live.indexer.gate.open()
            watcher.resume()
        }
        if before.paused != new.paused { logger.info("\(new.paused ?? "resumed")") }
        if before.onBattery != new.onBattery {
            logger.info(new.onBattery ? "on battery: the reconcile and rescans wait for mains power" : "on mains power: deferred work goes on")
        }
        inbox.wake()
        refreshState()
    }

    /// Finishes the batch in hand and returns from `run()`.
    package func stop() {
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
    private func retryingStorage<T>(_ loop: inout WatchLoop, _ body: () throws -> T) throws -> T? {
        while !stopped.load(ordering: .acquiring) {
            do {
                let result = try body()
                worked(&loop)
                return result
            } catch let error as IndexError where error.isStorage {
                waitAfterStorageFailure(error, &loop)
            }
        }
        return nil
    }

    /// Records the failure (status "waiting", the problem, the pending changes kept) and
    /// waits as long as the loop says, or until stopped.
    private func waitAfterStorageFailure(_ error: IndexError, _ loop: inout WatchLoop) {
        let delay = loop.storageFailed()
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        let kept = inbox.count + watcher.statistics.pending
        let message = "\(error); \(kept) changes kept, trying again in \(String(format: "%g", seconds)) s"
        if loop.report.storageFailures == 1 || delay >= .seconds(30) { logger.error("\(message)") } else { logger.warning("\(message)") }
        loopReport.withLock { $0 = loop.report }
        update {
            $0.problem = message
            $0.refresh(loop: loop.report, controls: self.controls.withLock { $0 }, waitingOutside: kept)
        }
        _ = pause.wait(timeout: .now() + seconds)
        inbox.wake()  // what was put back is due now, whether or not anything new came
    }

    private func worked(_ loop: inout WatchLoop) {
        guard let failures = loop.storageWorked() else { return }
        loopReport.withLock { $0 = loop.report }
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
            $0.unwatchedCount = statistics.unwatchedCount > 0 ? statistics.unwatchedCount : nil
            $0.overflows = statistics.overflows
            $0.missingRoots = statistics.missingRoots.map(\.string)
            $0.polled = statistics.polled
        }
        live.indexer.offline.withLock { $0 = Set(statistics.polled.filter { !$0.mounted }.map(\.path)) }
        refreshState()
    }

    /// Publishes the state and what waits, composed from each owner's part.
    private func refreshState() {
        // Read under the status lock, so that of two threads refreshing at once (the loop, and
        // the watcher's thread reporting its statistics) the later one writes what is true then.
        update { status in
            status.refresh(loop: loopReport.withLock { $0 }, controls: controls.withLock { $0 },
                           waitingOutside: watcher.statistics.pending + inbox.count)
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
            let due = throttle.withLock { $0.due(stateChanged: status.state != before, now: now) }
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

    /// The oldest `limit` changes (all when there are no more).
    func take(upTo limit: Int) -> [FileChange] {
        changes.withLock { changes in
            guard changes.count > limit else {
                defer { changes.removeAll() }
                return changes
            }
            defer { changes.removeFirst(limit) }
            return Array(changes.prefix(limit))
        }
    }

    /// Waits for changes (or a wake-up). Level-triggered: wake-ups that came meanwhile are
    /// taken with it (the caller looks at everything anew), so a burst is one turn of the loop.
    func wait() {
        signal.wait()
        drain()
    }

    /// Waits for news for at most `duration`.
    func wait(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        if signal.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) == .success { drain() }
    }

    private func drain() { while signal.wait(timeout: .now()) == .success {} }
    func wake() { signal.signal() }
}

/// Lets the watcher's callbacks reach the service once it exists.
private final class ServiceBox: @unchecked Sendable {
    // Unchecked: written once in the service's initializer, before the watcher runs.
    weak var service: WatchService?
}
