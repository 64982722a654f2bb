#if canImport(Glibc)
import Glibc
#endif
public import SystemPackage

/// Where Docent keeps what it learns from the user's files (the index holds their text, the
/// preview cache their previews): directories `0700` and files `0600`, whatever the umask,
/// so another user on the machine cannot read a `0600` file's text through them.
///
/// Modes are set explicitly (`fchmod`/`chmod` after creation), because a creation mode only
/// takes away what the umask allows. Existing looser files and directories are tightened,
/// and each tightening is said once on standard error (once made private, it stays so).
public enum PrivateStorage {
    /// Owner read and write: the mode of every file Docent writes.
    public static let fileMode: CModeT = 0o600
    /// Owner only: the mode of every directory Docent makes.
    public static let directoryMode: CModeT = 0o700

    /// Makes `path` a directory, and each missing parent, with mode `0700` (the XDG base
    /// directory specification's rule for directories an application creates). When
    /// `tightenExisting`, an existing `path` that others can enter is made `0700` too.
    ///
    /// The corresponding C functions are `mkdir` and `chmod`.
    public static func makeDirectory(_ path: String, tightenExisting: Bool) throws(Errno) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw Errno.notDirectory }
            if tightenExisting { tighten(path, to: directoryMode) }
            return
        }
        let parent = Self.parent(of: path)
        if !parent.isEmpty, parent != path { try makeDirectory(parent, tightenExisting: false) }
        if mkdir(path, directoryMode) != 0 {
            guard errno == EEXIST else { throw Errno(rawValue: errno) }
            return  // made by another process meanwhile
        }
        _ = chmod(path, directoryMode)  // the umask may have taken owner bits away
    }

    /// Makes `path` no more open than `mode` when group or others may read, write or enter
    /// it; says so on standard error. Nothing happens to a path that does not exist or that
    /// belongs to someone else. Returns whether it changed.
    @discardableResult
    public static func tighten(_ path: String, to mode: CModeT = fileMode) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFLNK, status.st_uid == geteuid(),
              status.st_mode & 0o077 != 0
        else { return false }
        guard chmod(path, mode) == 0 else { return false }
        let was = String(status.st_mode & 0o7777, radix: 8), now = String(mode, radix: 8)
        report("made \(path) private (mode 0\(was) → 0\(now)): it holds the text of your files")
        return true
    }

    /// Opens `path` for writing, created with mode `0600` (an existing file is truncated and
    /// made `0600`); the descriptor is close-on-exec.
    ///
    /// The corresponding C function is `open` with `O_CREAT | O_TRUNC`.
    public static func create(_ path: String, truncate: Bool = true) throws(Errno) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0), fileMode)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        _ = fchmod(fd, fileMode)
        return fd
    }

    /// Writes `bytes` to `path` whole: to a private temporary file beside it, then renamed
    /// over it, so a reader sees the old contents or the new, never half.
    /// `temporary` names the file written first (default: the path with the process id).
    public static func replace(_ path: String, with bytes: [UInt8], temporary: String? = nil) throws(Errno) {
        let temporary = temporary ?? path + ".\(getpid()).tmp"
        let fd = try create(temporary)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let failure = Errno(rawValue: errno)
                close(fd)
                unlink(temporary)
                throw failure
            }
            offset += n
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = Errno(rawValue: errno)
            unlink(temporary)
            throw failure
        }
    }

    /// Where tightenings are told: standard error, prefixed like Docent's other notes.
    private static func report(_ message: String) {
        let line = "docent: " + message + "\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }
}
