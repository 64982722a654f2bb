import Foundation

/// Where indexing work stops while Docent is paused: every file read and every directory
/// compared passes the gate first, and waits at it (blocked, no CPU) while it is closed.
public final class WorkGate: @unchecked Sendable {
    // Unchecked: `closed` is only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var closed = false

    public init() {}

    public var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Stops work at its next file or directory.
    public func close() {
        condition.lock()
        closed = true
        condition.unlock()
    }

    /// Lets waiting work go on.
    public func open() {
        condition.lock()
        closed = false
        condition.broadcast()
        condition.unlock()
    }

    /// Returns at once while open; waits while closed.
    public func pass() {
        condition.lock()
        while closed { condition.wait() }
        condition.unlock()
    }
}
