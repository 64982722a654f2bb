import Foundation
import Watcher

/// What holds `docent watch`'s work back: a pause (its reason), the battery. Decided by
/// `WatchControls.of(_:now:onBattery:)` from `docent pause`'s request and the power supply.
struct WatchControls: Sendable, Equatable {
    var paused: String?
    var onBattery = false

    /// The controls for a pause request read at `now` (seconds since the epoch), and when to
    /// look again (a timed pause's end, plus a little); nil when nothing is timed.
    static func of(_ request: PauseRequest?, now: Double, onBattery: Bool) -> (controls: WatchControls, lookAgainAt: Double?) {
        guard let request else { return (WatchControls(onBattery: onBattery), nil) }
        guard let until = request.until else {
            return (WatchControls(paused: "paused by `docent pause` (`docent resume` resumes)", onBattery: onBattery), nil)
        }
        guard until > now else { return (WatchControls(onBattery: onBattery), nil) }  // a pause that has ended
        return (WatchControls(paused: "paused by `docent pause` until \(PauseRequest.clock(until))", onBattery: onBattery), until + 0.05)
    }
}

/// The applying thread of `docent watch`, as decisions: what to do next, which changes a
/// batch holds, how long to wait after the index's disk refused a write. Pure — no threads,
/// no clock, no disk — so each rule is a table test; `WatchService` is the shell that waits,
/// applies and publishes. One owner: the applying thread, which publishes `report` for the
/// status after each step.
struct WatchLoop: Sendable, Equatable {
    /// What to do next.
    enum Step: Equatable {
        /// Nothing to do until woken (changes, a control, `stop()`).
        case sleep
        /// Changes settle in the watcher and may come to nothing (a file made and removed
        /// within the settle time): look again shortly, so the state does not stay "indexing"
        /// with nothing on its way.
        case lookAgain(after: Duration)
        /// Compare the roots with the index (at start, once on mains power).
        case reconcile
        /// Take the inbox's changes and apply them (`batch(from:onBattery:)`).
        case applyBatch
        /// Nothing waits and something was written: one small step of the index's upkeep
        /// (`IndexStore.tidyWhileIdle`), then look again (`tidied(moreLeft:)`).
        case tidy
    }

    /// What the status needs from the loop.
    struct Report: Sendable, Equatable {
        var reconciled = false
        /// The batch being applied: its changes are still pending until written.
        var inHand = 0
        /// Whether a batch is being applied (one is in hand).
        var applying: Bool { inHand > 0 }
        /// Storage failures in a row.
        var storageFailures = 0
        /// Rescans put off while on battery.
        var heldRescans = 0
        /// Written since the index's upkeep last had nothing left to do.
        var untidy = false
    }

    private(set) var report = Report()
    /// Rescans put off while on battery, each directory once.
    private(set) var held: [FileChange] = []

    static let settlingLook = Duration.milliseconds(250)

    /// The next step, given the controls, the changes in the inbox and those still settling in
    /// the watcher. Paused, nothing is read or compared; on battery the reconcile and rescans
    /// wait while single changes are still applied.
    func next(_ controls: WatchControls, inbox: Int, settling: Int) -> Step {
        if controls.paused != nil { return .sleep }
        if !report.reconciled, !controls.onBattery { return .reconcile }
        if inbox > 0 || (!held.isEmpty && !controls.onBattery) { return .applyBatch }
        if settling > 0 { return .lookAgain(after: Self.settlingLook) }
        // Upkeep only once nothing waits or settles, and on mains power.
        return report.untidy && !controls.onBattery ? .tidy : .sleep
    }

    /// Something was written (a batch, a reconcile that read or removed files): the index's
    /// upkeep has work again.
    mutating func wrote() { report.untidy = true }

    /// A step of upkeep was taken: whether the store has more (a failed step counts as none,
    /// so a store that cannot do it is not asked again until the next write).
    mutating func tidied(moreLeft: Bool) { report.untidy = moreLeft }

    /// The reconcile is done. The upkeep then looks once whatever it wrote: a watcher that
    /// starts after an index that stopped (a killed watcher, `docent index` cut short) may find
    /// segments to merge or ranked lists behind, with no write to come until a file changes.
    mutating func reconciled() {
        report.reconciled = true
        report.untidy = true
    }

    /// The changes to apply from what the inbox held: on battery, rescans are held back (each
    /// directory's once, however many polls or overflows asked for it); on mains, what was
    /// held goes first. Empty when nothing is left to apply.
    mutating func batch(from changes: [FileChange], onBattery: Bool) -> [FileChange] {
        var batch = changes
        if onBattery {
            for change in batch { if case .rescan = change, !held.contains(change) { held.append(change) } }
            batch.removeAll { if case .rescan = $0 { true } else { false } }
        } else {
            batch = held + batch
            held.removeAll()
        }
        report.heldRescans = held.count
        return batch
    }

    /// A batch of `count` changes is being applied (`count` 0: the batch is done, written or put back).
    mutating func applying(_ count: Int) {
        report.inHand = count
    }

    /// The index's disk refused a write: how long to wait before trying again — 0.5 s, then
    /// 1, 2, 4 … up to 30 s.
    mutating func storageFailed() -> Duration {
        report.storageFailures += 1
        let seconds = min(30.0, 0.5 * pow(2.0, Double(min(report.storageFailures - 1, 6))))
        return .milliseconds(Int64(seconds * 1000))
    }

    /// A write went through: how many failed in a row before it, when some did.
    mutating func storageWorked() -> Int? {
        defer { report.storageFailures = 0 }
        return report.storageFailures > 0 ? report.storageFailures : nil
    }
}

extension WatchStatus {
    /// The state and what waits, from what each owner reports: the applying loop, the
    /// controls, and how many changes wait in the watcher and the inbox.
    mutating func refresh(loop: WatchLoop.Report, controls: WatchControls, waitingOutside: Int) {
        let waiting = waitingOutside + loop.inHand
        state = WatchState.of(paused: controls.paused != nil, storageFailing: loop.storageFailures > 0, reconciled: loop.reconciled,
                              onBattery: controls.onBattery, changesWaiting: waiting, applying: loop.applying)
        deferred = nil
        if controls.onBattery, !loop.reconciled || loop.heldRescans > 0 {
            let held = loop.heldRescans
            deferred = "on battery: " + [!loop.reconciled ? "the reconcile with the disk" : nil, held > 0 ? "\(held) rescan\(held == 1 ? "" : "s")" : nil]
                .compactMap { $0 }.joined(separator: " and ") + " wait for mains power"
        }
        pending = waiting
        paused = controls.paused
    }
}

/// When the status file is written: at once when the state changes, else at most every
/// `interval`; a change held back is written by a trailing write, so the last one is never lost.
struct StatusThrottle: Sendable, Equatable {
    static let interval = Duration.milliseconds(100)
    private var lastWrite: ContinuousClock.Instant?

    /// Whether to write now (and remember that it was written).
    mutating func due(stateChanged: Bool, now: ContinuousClock.Instant) -> Bool {
        if !stateChanged, let lastWrite, now - lastWrite < Self.interval { return false }
        lastWrite = now
        return true
    }
}
