#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// The first bytes of a regular file, read once, bounded, and kept for whoever opens the
/// file next (the document that reads it), so nothing is read twice.
public struct FilePrefix: Sendable {
    /// The bytes read, at most the limit asked for.
    public var bytes: [UInt8]
    /// Whether `bytes` is the whole file.
    public var isWholeFile: Bool

    /// Reads at most `limit` bytes of the regular file at `path`, opened read-only without
    /// following symbolic links, without becoming its controlling terminal, and without
    /// updating its access time where permitted; a FIFO or device swapped in after `lstat`
    /// is refused, never read.
    ///
    /// The corresponding C functions are `open` and `pread`.
    public static func read(_ path: FilePath, limit: Int, expected: FileStatus? = nil) throws(Errno) -> FilePrefix {
        let base = O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK
        var fd = retryingEINTR { path.withPlatformString { open($0, base | noAccessTime) } }
        if fd < 0 && errno == EPERM {  // O_NOATIME needs ownership; retry without it
            fd = retryingEINTR { path.withPlatformString { open($0, base) } }
        }
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0 else { throw Errno(rawValue: errno) }
        guard (s.st_mode & S_IFMT) == S_IFREG else { throw Errno.notPermitted }
        if let expected, UInt64(s.st_ino) != expected.inode || UInt64(s.st_dev) != expected.device {
            throw Errno.resourceTemporarilyUnavailable  // replaced between lstat and open
        }
        let size = Int(s.st_size)
        let wanted = max(0, min(limit, size))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let n = bytes.withUnsafeMutableBytes { buffer in
                retryingEINTR { pread(fd, buffer.baseAddress! + done, wanted - done, off_t(done)) }
            }
            if n < 0 { throw Errno(rawValue: errno) }
            if n == 0 { break }  // the file shrank while being read
            done += n
        }
        if done < wanted { bytes.removeSubrange(done...) }
        return FilePrefix(bytes: bytes, isWholeFile: size <= limit && done == size)
    }
}

@inline(__always)
func retryingEINTR<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let rc = body()
        if rc >= 0 || errno != EINTR { return rc }
    }
}

/// `O_NOATIME` (Linux, `<fcntl.h>` with `_GNU_SOURCE`), which Glibc's Swift module does not export.
let noAccessTime: Int32 = 0o1000000
