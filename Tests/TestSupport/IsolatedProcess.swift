public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts programs for tests that inherit no descriptor of the test process beyond their
/// own standard ones: a server a test starts lives on, and holding the write end of another
/// test's output pipe, it kept that test's read of its `docent` waiting for an end that
/// never came (Foundation's `Process` leaves such descriptors open in the child).
public enum IsolatedProcess {
    /// Starts `argv` (an absolute path first) with standard input from /dev/null and standard
    /// output and error to the file `output`, in `environment` (nil: this process's).
    public static func start(_ argv: [String], environment: [String: String]? = nil, output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which Swift's Glibc module
        // does not declare.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw PostgresServerError("this C library cannot close a child's descriptors (glibc 2.34 or later is needed)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        let argvC = argv.map { strdup($0) } + [nil]
        defer { for pointer in argvC { free(pointer) } }
        var pid: pid_t = 0
        let spawned: Int32
        if let environment {
            let envC = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envC { free(pointer) } }
            spawned = posix_spawn(&pid, argv[0], &actions, nil, argvC, envC)
        } else {
            spawned = posix_spawn(&pid, argv[0], &actions, nil, argvC, environ)
        }
        guard spawned == 0 else { throw PostgresServerError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// Waits for `pid`; its exit status (128 + the signal for one killed).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
