import CFileSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Work on threads of Docent's own, never on libdispatch's global queues.
///
/// On Linux the first use of a global queue (`DispatchQueue.global()`, `concurrentPerform`,
/// a dispatch source or `asyncAfter` on one) starts libdispatch's worker-pool monitor: a
/// timer that wakes the process once a second for the rest of its life (swift-corelibs-
/// libdispatch, `src/event/workqueue.c`, `_dispatch_workq_init_once`). A watcher that must
/// sleep while nothing changes uses these instead: threads that block until there is work,
/// one alarm thread that sleeps until its next deadline, and signals read from a pipe.
public enum OwnThreads {
    /// Runs `body(i)` for `i` in `0..<iterations`, each on a thread of its own (the first on
    /// the calling thread); returns when all have returned. For a few long-running workers
    /// (a batch's readers, a write's lanes), as `DispatchQueue.concurrentPerform`.
    public static func concurrentPerform(iterations: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard iterations > 1 else {
            if iterations == 1 { body(0) }
            return
        }
        let done = DispatchSemaphore(value: 0)
        for i in 1..<iterations {
            start("docent-worker") {
                body(i)
                done.signal()
            }
        }
        body(0)
        for _ in 1..<iterations { done.wait() }
    }

    /// Runs `body` on a new thread named `name`, the name `top -H`, `ps -L`, gdb and
    /// `/proc/PID/task/TID/comm` show (the kernel keeps its first 15 bytes). Foundation's
    /// `Thread.name` is not passed on to the kernel on Linux.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        Thread {
            _ = docent_name_thread(name)
            body()
        }.start()
    }

    /// Calls `action` once, on the alarm thread, after `delay`, unless cancelled first. The
    /// thread sleeps until the earliest deadline, or for as long as nothing is due; actions run
    /// one after another and should be short (or hand their work on).
    @discardableResult
    public static func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) -> Alarm {
        Alarms.shared.add(deadline: Alarms.now() + UInt64(max(0, delay / .nanoseconds(1))), action)
    }

    /// Cancels `alarm` if it has not gone off: the alarm thread will not wake for it.
    public static func cancel(_ alarm: Alarm) {
        Alarms.shared.cancel(alarm)
    }

    /// An alarm set with `after`.
    public struct Alarm: Hashable, Sendable {
        fileprivate let number: UInt64
    }

    /// Calls `handler` (on the signal thread) each time one of `signals` arrives.
    ///
    /// The signals are blocked in the calling thread, so every thread it starts afterwards
    /// inherits the block, and arrive at the one signal thread, whose handler writes them to
    /// a pipe it reads: no other thread's system call is interrupted by them. Call it early,
    /// from the main thread, before starting others (a thread started before may take a
    /// signal itself: the handler runs there, and a call it was in may fail with EINTR).
    public static func on(_ signals: [Int32], _ handler: @escaping @Sendable () -> Void) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals {
            guard docent_catch_signal(signal) == 0 else { continue }
            sigaddset(&set, signal)
            SignalThread.shared.add(signal, handler)
        }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}

/// One thread, started on first use, sleeping on a condition variable (monotonic clock)
/// until the earliest pending deadline, or indefinitely while none is pending.
private final class Alarms: @unchecked Sendable {
    // Unchecked: `pending` and `started` are only touched under `mutex`.
    static let shared = Alarms()
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending: [(deadline: UInt64, alarm: UInt64, action: @Sendable () -> Void)] = []
    private var alarms: UInt64 = 0
    private var started = false

    private init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    func add(deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> OwnThreads.Alarm {
        pthread_mutex_lock(mutex)
        alarms += 1
        let alarm = alarms
        pending.append((deadline, alarm, action))
        if !started {
            started = true
            OwnThreads.start("docent-alarms") { [self] in run() }
        }
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        return OwnThreads.Alarm(number: alarm)
    }

    func cancel(_ alarm: OwnThreads.Alarm) {
        pthread_mutex_lock(mutex)
        if let index = pending.firstIndex(where: { $0.alarm == alarm.number }) {
            pending.remove(at: index)
            pthread_cond_signal(condition)  // its wait is measured against the deadlines left
        }
        pthread_mutex_unlock(mutex)
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            guard let next = pending.indices.min(by: { pending[$0].deadline < pending[$1].deadline }) else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let deadline = pending[next].deadline
            if deadline <= Self.now() {
                let action = pending.remove(at: next).action
                pthread_mutex_unlock(mutex)
                action()
                pthread_mutex_lock(mutex)
            } else {
                var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &until)
            }
        }
    }
}

/// The thread that receives the caught signals and calls their handlers.
private final class SignalThread: @unchecked Sendable {
    // Unchecked: `handlers` and `started` are only touched under the lock.
    static let shared = SignalThread()
    private let state = Locked((handlers: [Int32: [@Sendable () -> Void]](), started: false))

    func add(_ signal: Int32, _ handler: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.handlers[signal, default: []].append(handler)
            defer { state.started = true }
            return !state.started
        }
        guard start else { return }
        OwnThreads.start("docent-signals") { [self] in run() }
    }

    private func run() {
        // This thread alone takes the signals (every thread started after `on` blocks them).
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_UNBLOCK, &all, nil)
        let reader = docent_signal_reader()
        var number: UInt8 = 0
        while true {
            let n = read(reader, &number, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else { return }
            let handlers = state.withLock { $0.handlers[Int32(number)] ?? [] }
            for handler in handlers { handler() }
        }
    }
}
