@testable import Engine
import Foundation
import SystemPackage
import Testing
import Watcher

/// `docent watch`'s applying thread as decisions (`WatchLoop`), its controls, its status and the
/// status file's rate limit: tables over an injected clock, no threads, no disk.
@Suite("The watch loop's decisions")
struct WatchLoopTests {
    static let mains = WatchControls()
    static let battery = WatchControls(onBattery: true)
    static let paused = WatchControls(paused: "paused by `docent pause` (`docent resume` resumes)")

    @Test("The next step: a pause first, then the reconcile (on mains), then changes, then what settles",
          arguments: [
              // controls, reconciled, inbox, settling → step
              (paused, false, 5, 5, WatchLoop.Step.sleep),
              (paused, true, 5, 0, .sleep),
              (mains, false, 3, 2, .reconcile),
              (battery, false, 0, 0, .sleep),  // the reconcile waits for mains power
              (battery, false, 2, 0, .applyBatch),  // single changes still go on
              (mains, true, 1, 0, .applyBatch),
              (mains, true, 0, 4, .lookAgain(after: .milliseconds(250))),
              (mains, true, 0, 0, .sleep),
          ])
    func next(controls: WatchControls, reconciled: Bool, inbox: Int, settling: Int, expected: WatchLoop.Step) {
        var loop = WatchLoop()
        if reconciled {
            loop.reconciled()
            loop.tidied(moreLeft: false)
        }
        #expect(loop.next(controls, inbox: inbox, settling: settling) == expected)
    }

    @Test("Upkeep once after the reconcile and after a write, once nothing waits or settles, on mains, until the store has none left")
    func tidy() {
        var loop = WatchLoop()
        loop.reconciled()
        #expect(loop.next(Self.mains, inbox: 0, settling: 0) == .tidy, "upkeep looks once at start (work a stopped process left)")
        loop.tidied(moreLeft: false)
        #expect(loop.next(Self.mains, inbox: 0, settling: 0) == .sleep, "nothing written since: nothing to tidy")
        loop.wrote()
        #expect(loop.next(Self.mains, inbox: 2, settling: 0) == .applyBatch, "changes go before upkeep")
        #expect(loop.next(Self.mains, inbox: 0, settling: 3) == .lookAgain(after: .milliseconds(250)))
        #expect(loop.next(Self.paused, inbox: 0, settling: 0) == .sleep)
        #expect(loop.next(Self.battery, inbox: 0, settling: 0) == .sleep, "upkeep waits for mains power")
        #expect(loop.next(Self.mains, inbox: 0, settling: 0) == .tidy)
        loop.tidied(moreLeft: true)
        #expect(loop.next(Self.mains, inbox: 0, settling: 0) == .tidy)
        loop.tidied(moreLeft: false)
        #expect(loop.next(Self.mains, inbox: 0, settling: 0) == .sleep, "done until the next write")
    }

    @Test("On battery, rescans are held (each directory once) and go first once on mains; other changes go at once")
    func heldRescans() {
        let a = FilePath("/r/a"), b = FilePath("/r/b")
        var loop = WatchLoop()
        loop.reconciled()
        let first = loop.batch(from: [.rescan(a), .changed(b), .rescan(a)], onBattery: true)
        let second = loop.batch(from: [.rescan(a), .rescan(b)], onBattery: true)
        #expect(first == [.changed(b)] && second == [])
        #expect(loop.held == [.rescan(a), .rescan(b)] && loop.report.heldRescans == 2)
        // Nothing new in the inbox: on battery the held rescans wait; on mains they are due.
        #expect(loop.next(Self.battery, inbox: 0, settling: 0) == .sleep)
        #expect(loop.next(Self.mains, inbox: 0, settling: 0) == .applyBatch)
        let onMains = loop.batch(from: [.removed(b)], onBattery: false)
        #expect(onMains == [.rescan(a), .rescan(b), .removed(b)])
        #expect(loop.held.isEmpty && loop.report.heldRescans == 0)
    }

    @Test("A disk that refuses writes: waits of 0.5 s, 1, 2 … up to 30 s; a write that works says how many failed")
    func storageBackoff() {
        var loop = WatchLoop()
        let waits = (0..<9).map { _ in loop.storageFailed() }
        #expect(waits == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
        #expect(loop.report.storageFailures == 9)
        let recovered = loop.storageWorked(), again = loop.storageWorked()
        #expect(recovered == 9 && again == nil && loop.report.storageFailures == 0)
        let afterwards = loop.storageFailed()
        #expect(afterwards == .milliseconds(500), "the pauses start over after a recovery")
    }

    @Test("The status is composed from the owners' parts: a batch in hand is pending; on battery it says what waits")
    func statusComposition() {
        var status = WatchStatus(state: .starting, pending: 0, watchedDirectories: 1, unwatchedDirectories: [], overflows: 0, files: 0,
                                 missingRoots: [], roots: ["/r"], pid: 1, started: 0, lastApplied: nil)
        var loop = WatchLoop()
        status.refresh(loop: loop.report, controls: Self.battery, waitingOutside: 0)
        #expect(status.state == .deferred && status.deferred == "on battery: the reconcile with the disk wait for mains power")
        loop.reconciled()
        _ = loop.batch(from: [.rescan("/r/x")], onBattery: true)
        status.refresh(loop: loop.report, controls: Self.battery, waitingOutside: 0)
        #expect(status.state == .watching && status.deferred == "on battery: 1 rescan wait for mains power")
        loop.applying(7)
        status.refresh(loop: loop.report, controls: Self.mains, waitingOutside: 2)
        #expect(status.state == .indexing && status.pending == 9 && status.deferred == nil)
        loop.applying(0)
        _ = loop.storageFailed()
        status.refresh(loop: loop.report, controls: Self.mains, waitingOutside: 3)
        #expect(status.state == .waiting && status.pending == 3)
        status.refresh(loop: loop.report, controls: Self.paused, waitingOutside: 3)
        #expect(status.state == .paused && status.paused == Self.paused.paused)
    }

    @Test("`docent pause` read at a given time: until resumed, until a time (looked at again just after it), or over")
    func pauseControls() {
        let now = 1_000_000.0
        #expect(WatchControls.of(nil, now: now, onBattery: true) == (WatchControls(onBattery: true), nil))
        let open = WatchControls.of(PauseRequest(since: now - 5, until: nil), now: now, onBattery: false)
        #expect(open.controls.paused == "paused by `docent pause` (`docent resume` resumes)" && open.lookAgainAt == nil)
        let timed = WatchControls.of(PauseRequest(since: now - 5, until: now + 60), now: now, onBattery: false)
        #expect(timed.controls.paused?.hasPrefix("paused by `docent pause` until ") == true)
        #expect(timed.lookAgainAt.map { $0 > now + 60 && $0 < now + 61 } == true)
        let over = WatchControls.of(PauseRequest(since: now - 120, until: now - 60), now: now, onBattery: false)
        #expect(over.controls.paused == nil && over.lookAgainAt == nil)
    }

    @Test("The status file: written at once when the state changes, else at most every 100 ms")
    func throttle() {
        var throttle = StatusThrottle()
        let start = ContinuousClock.now
        // (milliseconds after the start, whether the state changed) → written
        let writes = [(0, false), (40, false), (50, true), (149, false), (150, false)].map { offset, changed in
            throttle.due(stateChanged: changed, now: start + .milliseconds(offset))
        }
        #expect(writes == [true, false, true, false, true])
    }
}
