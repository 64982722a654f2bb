#if canImport(Glibc)
import Glibc
#endif
public import SystemPackage

/// A regular file opened read-only, the one way Docent opens a user's file.
///
/// Opened with `O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK`, plus `O_NOATIME`
/// where the kernel permits it (the caller owns the file), so reading never changes the file,
/// never follows a symbolic link, never blocks on a FIFO and never acquires a terminal.
/// Anything that is not a regular file once opened (a FIFO or device swapped in after
/// `lstat`) is refused before a byte is read. The descriptor closes when the value goes.
public final class ReadOnlyFile: @unchecked Sendable {
    // Sendable: its two properties never change, and `pread` and `mmap` share no offset.
    /// The open file descriptor.
    public let descriptor: Int32
    /// What `fstat` said of the open file.
    public let status: FileStatus

    /// Opens the regular file at `path` read-only.
    ///
    /// - Parameter expected: the `lstat` result the caller acted on; when the file opened is
    ///   a different one (replaced in between), `EAGAIN` is thrown so the caller can retry.
    ///
    /// The corresponding C functions are `open` and `fstat`.
    public init(_ path: FilePath, expected: FileStatus? = nil) throws(Errno) {
        let base = O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK
        var fd = retryingEINTR { path.withPlatformString { open($0, base | noAccessTime) } }
        if fd < 0 && errno == EPERM {  // O_NOATIME needs ownership; retry without it
            fd = retryingEINTR { path.withPlatformString { open($0, base) } }
        }
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        var s = stat()
        guard fstat(fd, &s) == 0 else {
            let error = Errno(rawValue: errno)
            close(fd)
            throw error
        }
        guard (s.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Errno.notPermitted
        }
        if let expected, UInt64(s.st_ino) != expected.inode || UInt64(s.st_dev) != expected.device {
            close(fd)
            throw Errno.resourceTemporarilyUnavailable
        }
        descriptor = fd
        status = FileStatus(s)
    }

    /// Takes over `descriptor`, an open file handed over by another process (`SCM_RIGHTS`):
    /// refused, and closed, unless it is a regular file opened for reading.
    ///
    /// The corresponding C functions are `fstat` and `fcntl`.
    public init(adopting descriptor: Int32) throws(Errno) {
        var s = stat()
        guard fstat(descriptor, &s) == 0 else {
            let error = Errno(rawValue: errno)
            close(descriptor)
            throw error
        }
        let mode = fcntl(descriptor, F_GETFL)
        guard (s.st_mode & S_IFMT) == S_IFREG, mode >= 0, mode & O_ACCMODE == O_RDONLY else {
            close(descriptor)
            throw Errno.notPermitted
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        self.descriptor = descriptor
        status = FileStatus(s)
    }

    deinit { close(descriptor) }

    /// Reads at most `limit` bytes starting at `offset`; fewer when the file is shorter or
    /// shrank while being read.
    ///
    /// The corresponding C function is `pread`.
    public func read(upTo limit: Int, at offset: Int = 0) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count(upTo: limit, at: offset))
        let done = try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(Errno) -> Int in try read(into: buffer, at: offset) }
        }.get()
        if done < bytes.count { bytes.removeSubrange(done...) }
        return bytes
    }

    /// How many bytes `read(upTo: limit, at: offset)` asks for: the file's size as `fstat`
    /// saw it, from `offset`, at most `limit`.
    public func count(upTo limit: Int, at offset: Int = 0) -> Int {
        max(0, min(limit, Int(status.size) - offset))
    }

    /// Fills `buffer` with the file's bytes from `offset`, in place (no copy: a large file's
    /// bytes are held once); the number read, fewer than `buffer.count` when the file is
    /// shorter or shrank while being read.
    ///
    /// The corresponding C function is `pread`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int = 0) throws(Errno) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = retryingEINTR { pread(descriptor, base + done, buffer.count - done, off_t(offset + done)) }
            if n < 0 { throw Errno(rawValue: errno) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Maps at most `limit` bytes of the file read-only and private, for large files that
    /// are scanned rather than copied; nil for an empty file.
    ///
    /// The mapping outlives this object (it is unmapped when the returned value goes).
    /// A file truncated by another process while mapped raises `SIGBUS` on access, so
    /// callers map only what they are about to scan at once.
    ///
    /// The corresponding C function is `mmap`.
    public func map(upTo limit: Int) throws(Errno) -> MappedRegion? {
        let length = min(limit, Int(status.size))
        guard length > 0 else { return nil }
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw Errno(rawValue: errno)
        }
        return MappedRegion(address: UnsafeRawPointer(address), count: length)
    }
}

/// A read-only memory mapping, unmapped when the value goes.
public final class MappedRegion: @unchecked Sendable {
    // Sendable: the memory is mapped read-only (PROT_READ) and never changes owner.
    private let address: UnsafeRawPointer
    /// The mapping's length in bytes.
    public let count: Int

    init(address: UnsafeRawPointer, count: Int) {
        self.address = address
        self.count = count
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: address), count) }

    /// Calls `body` with the mapped bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: address, count: count))
    }
}

/// Calls `body` again while it fails with `EINTR`.
@inline(__always)
public func retryingEINTR<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let rc = body()
        if rc >= 0 || errno != EINTR { return rc }
    }
}

/// `O_NOATIME` (Linux, `<fcntl.h>` with `_GNU_SOURCE`), which Glibc's Swift module does not export.
let noAccessTime: Int32 = 0o1000000
