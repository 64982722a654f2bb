import CLibPQ
import FileAccess
import Index
#if canImport(Glibc)
import Glibc
#endif

/// What `docent search --follow` waits on for an index on PostgreSQL: every transaction that
/// writes rows ends by notifying `docent_changes` (`PostgresIndex.run`), whichever host wrote
/// them, and this listens (`LISTEN`) on a connection of its own, so a change is seen as it
/// commits, without polling. A lost connection is made again, once a second until the server
/// is back, and counts as a change: what happened meanwhile was not heard.
public final class ChangeListener: @unchecked Sendable {
    // Unchecked: `connection` is used by the one thread that calls `wait`; `stop` touches only
    // the lock and the pipe.
    private let address: String
    private let settle: Int32
    private var connection: Connection?
    private let wake: (read: Int32, write: Int32)
    private let stopped = Locked(false)

    init(address: String, settle milliseconds: Int32) throws(IndexError) {
        self.address = address
        settle = milliseconds
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else {
            throw IndexError.database(message: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in pipe {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wake = (pipe[0], pipe[1])
        do { connection = try Self.listening(address) } catch {
            close(pipe[0])
            close(pipe[1])
            throw error
        }
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    private static func listening(_ address: String) throws(IndexError) -> Connection {
        let connection = try Connection(address: address)
        try connection.execute("LISTEN docent_changes")
        return connection
    }

    /// Waits for the next change: true when one came (with what followed within the settle
    /// time), or after the connection was lost and made again; false once stopped.
    public func wait() -> Bool {
        while !stopped.withLock({ $0 }) {
            guard let connection, connection.isUp else {
                if let again = try? Self.listening(address) {
                    self.connection = again
                    return true
                }
                self.connection = nil
                if ready(socket: -1, timeout: 1000) == .stopped { return false }
                continue
            }
            switch ready(socket: connection.socket, timeout: -1) {
            case .stopped: return false
            case .timedOut: continue
            case .readable:
                let count = connection.takeNotifications()
                if count < 0 { self.connection = nil; continue }
                guard count > 0 else { continue }
                // Let the rest of a burst (two connections write a large batch's halves) arrive.
                while ready(socket: connection.socket, timeout: settle) == .readable, connection.takeNotifications() > 0 {}
                return true
            }
        }
        return false
    }

    /// Ends `wait`, from any thread.
    public func stop() {
        stopped.withLock { $0 = true }
        _ = write(wake.write, "x", 1)
    }

    private enum Readiness { case readable, stopped, timedOut }

    private func ready(socket: Int32, timeout: Int32) -> Readiness {
        var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0), pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        while true {
            let n = poll(&fds, socket >= 0 ? 2 : 1, timeout)
            if n < 0, errno == EINTR { continue }
            if fds[0].revents != 0 || stopped.withLock({ $0 }) { return .stopped }
            return n > 0 ? .readable : .timedOut
        }
    }
}
