public import CFileSystem
public import SystemPackage
#if canImport(Glibc)
public import Glibc
#endif

/// A child process started with `posix_spawn` and waited for by its owner alone: no monitor
/// thread, no polling. Waiting with a time limit sleeps in `poll` on a pidfd, which the
/// kernel makes readable when the child exits; the child is then reaped with `waitpid`.
/// Its signals start at their defaults with none blocked (this process ignores `SIGPIPE`,
/// and handles `SIGTERM` and `SIGUSR2` through dispatch, which a child must not inherit).
/// Used by one thread at a time.
public final class ChildProcess {
    /// What the child's file descriptor `target` is at its start.
    public enum Descriptor {
        /// This process's descriptor `fd`, duplicated.
        case duplicate(Int32)
        /// `/dev/null`, for reading and writing.
        case null
    }

    /// How a child ended.
    public enum Ending: Equatable, Sendable {
        case exited(Int32)
        case killed(signal: Int32)

        /// The signal that ended it, if one did.
        public var signal: Int32? {
            if case .killed(let signal) = self { signal } else { nil }
        }
    }

    public let pid: pid_t
    /// How it ended, once reaped.
    public private(set) var ending: Ending?
    private var pidfd: Int32

    private init(pid: pid_t) {
        self.pid = pid
        // A pidfd (Linux 5.3) to sleep on until the child exits; -1 where there is none, and
        // then waits fall back to a short sleep between checks.
        pidfd = docent_pidfd_open(pid)
    }

    deinit {
        if pidfd >= 0 { close(pidfd) }
    }

    /// Starts `argv` (`argv[0]` an absolute path, or looked up in `PATH` with `search`) with
    /// this process's environment and `descriptors` as its own (every other descriptor
    /// closed); in a process group of its own with `newGroup`. The `errno` when it cannot be.
    public static func spawn(_ argv: [String], descriptors: [Int32: Descriptor], search: Bool = false,
                             newGroup: Bool = false) throws(Errno) -> ChildProcess {
        guard let program = argv.first else { throw Errno.invalidArgument }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in descriptors.sorted(by: { $0.key < $1.key }) {
            switch source {
            case .duplicate(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0)
            }
        }
        let highest = (descriptors.keys.max() ?? 2) + 1
        _ = docent_spawn_close_from(&actions, max(highest, 3))
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if newGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var defaults = sigset_t(), empty = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = search
            ? posix_spawnp(&pid, program, &actions, &attributes, arguments, environ)
            : posix_spawn(&pid, program, &actions, &attributes, arguments, environ)
        guard spawned == 0 else { throw Errno(rawValue: spawned) }
        return ChildProcess(pid: pid)
    }

    /// A pipe for a child's standard input or output, close-on-exec from its making (so no
    /// child started by another thread meanwhile keeps an end open): its read and write ends.
    public static func pipe() throws(Errno) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard docent_pipe_cloexec(&fds) == 0 else { throw Errno(rawValue: errno) }
        return (fds[0], fds[1])
    }

    /// Sends `signal` to the child (to its whole group with `group`), unless it was reaped.
    public func kill(_ signal: Int32 = SIGKILL, group: Bool = false) {
        guard ending == nil else { return }
        _ = Glibc.kill(group ? -pid : pid, signal)
    }

    /// Waits until the child has exited or `limit` has passed; whether it has exited. Does
    /// not reap it.
    public func waitForExit(within limit: Duration) -> Bool {
        if ending != nil { return true }
        let deadline = ContinuousClock.now + limit
        while true {
            var info = siginfo_t()
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._kill.si_pid == pid {
                return true
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            if pidfd >= 0 {
                var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(Double(Int32.max), left / .milliseconds(1) + 1))
                if poll(&entry, 1, milliseconds) == 0 { return false }
            } else {
                usleep(2_000)
            }
        }
    }

    /// Waits for the child to end (as long as it takes) and reaps it: how it ended.
    @discardableResult
    public func reap() -> Ending {
        if let ending { return ending }
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(pid, &status, 0) } while reaped < 0 && errno == EINTR
        let signal = status & 0x7F  // WTERMSIG; 0 for a normal exit
        let ending: Ending = reaped != pid ? .exited(-1) : signal != 0 ? .killed(signal: signal) : .exited((status >> 8) & 0xFF)
        self.ending = ending
        if pidfd >= 0 { close(pidfd) }
        pidfd = -1
        return ending
    }

    /// Ends the child: waits `grace` for it to exit, kills it if it has not, and reaps it.
    @discardableResult
    public func end(grace: Duration) -> Ending {
        if !waitForExit(within: grace) { kill() }
        return reap()
    }
}
