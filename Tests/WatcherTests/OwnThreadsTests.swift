import FileAccess
import Foundation
import Testing

/// The watcher's threads without libdispatch's global queues: alarms in deadline order, a
/// cancelled alarm never goes off, workers each run once.
@Suite("OwnThreads: alarms and workers")
struct OwnThreadsTests {
    @Test("Alarms go off in deadline order, not in the order they were set; a cancelled one never")
    func alarms() {
        let fired = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        OwnThreads.after(.milliseconds(300)) { fired.withLock { $0.append(3) }; done.signal() }
        OwnThreads.after(.milliseconds(100)) { fired.withLock { $0.append(1) } }
        let cancelled = OwnThreads.after(.milliseconds(150)) { fired.withLock { $0.append(99) } }
        OwnThreads.after(.milliseconds(200)) { fired.withLock { $0.append(2) } }
        OwnThreads.cancel(cancelled)
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The one alarm thread runs them in deadline order: when the last has gone off, every
        // earlier deadline (the cancelled one's too) has passed.
        #expect(fired.withLock { $0 } == [1, 2, 3])
    }

    @Test("concurrentPerform runs every index once, on as many threads, and returns after all")
    func workers() {
        let seen = Locked<[Int: Int]>([:])
        let threads = Locked<Set<String>>([])
        OwnThreads.concurrentPerform(iterations: 4) { i in
            seen.withLock { $0[i, default: 0] += 1 }
            threads.withLock { _ = $0.insert("\(pthread_self())") }
            usleep(50_000)  // work that takes time, so the four run at once: the test is that they do
        }
        #expect(seen.withLock { $0 } == [0: 1, 1: 1, 2: 1, 3: 1])
        #expect(threads.withLock { $0.count } == 4)
    }
}
