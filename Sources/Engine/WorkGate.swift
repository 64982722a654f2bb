import Foundation

/// Where indexing work stops while Docent is paused: every file read and every directory
/// compared passes the gate first, and waits at it (blocked, no CPU) while it is closed.
package final class WorkGate: @unchecked Sendable {
    // Unchecked: `closed` is only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var closed = false

    package init() {}

    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Stops work at its next file or directory.
    package func close() {
        condition.lock()
        closed = true
        condition.unlock()
    }

    /// Lets waiting work go on.
    package func open() {
        condition.lock()
        closed = false
        condition.broadcast()
        condition.unlock()
    }

    /// Returns at once while open; waits while closed.
    package func pass() {
        condition.lock()
        while closed { condition.wait() }
        condition.unlock()
    }
}
