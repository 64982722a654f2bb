#if canImport(Glibc)
import Glibc
#endif

/// A value reached only under a lock: `Synchronization.Mutex`'s shape over a pthread mutex.
///
/// Why not `Mutex`: on Linux it is a futex inside the standard library, which
/// ThreadSanitizer cannot see, so every value it guards is reported as a race and the
/// sanitizer run says nothing useful. pthread mutexes are what TSan intercepts; their cost
/// here (a few locks per file indexed) is not measurable.
public final class Locked<Value>: @unchecked Sendable {
    // Unchecked: `value` is only touched between pthread_mutex_lock and _unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
