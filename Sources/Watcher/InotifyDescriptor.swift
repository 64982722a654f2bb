#if canImport(Glibc)
import Glibc
#endif
import FileAccess
public import SystemPackage

/// An inotify instance: the descriptor and its watches.
///
/// The corresponding C functions are `inotify_init1`, `inotify_add_watch`,
/// `inotify_rm_watch` and `read`.
public final class InotifyDescriptor: @unchecked Sendable {
    // Unchecked: the descriptor is an Int32 the kernel owns; reads happen on the watcher's
    // thread only, and adding or removing watches is thread-safe in the kernel.
    public let descriptor: Int32

    /// A non-blocking, close-on-exec inotify instance.
    ///
    /// - Throws: `WatcherError.instanceLimit` on `EMFILE` (the per-user instance limit), with
    ///   the sysctl that raises it; `WatcherError.system` otherwise.
    public init() throws(WatcherError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            let error = Errno(rawValue: errno)
            if error == .tooManyOpenFiles { throw .instanceLimit }
            throw .system(call: "inotify_init1", error)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Watches the directory at `path` for `mask`; returns the watch descriptor (the same
    /// one again when the directory is already watched).
    public func addWatch(_ path: FilePath, mask: UInt32 = Inotify.directoryMask) throws(Errno) -> Int32 {
        let wd = path.withPlatformString { inotify_add_watch(descriptor, $0, mask) }
        guard wd >= 0 else { throw Errno(rawValue: errno) }
        return wd
    }

    /// Stops a watch (the kernel then sends `IN_IGNORED` for it).
    public func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// Reads the events waiting now; empty when there are none.
    public func readEvents() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        let size = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let n = read(descriptor, buffer.baseAddress, size)
            if n < 0 {
                if errno == EINTR { continue }
                break  // EAGAIN: drained
            }
            if n == 0 { break }
            events += InotifyEvent.decode(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            if events.count > 100_000 { break }  // let the caller work through these first
        }
        return events
    }
}

/// Why watching could not start or go on.
public enum WatcherError: Error, Sendable, CustomStringConvertible {
    /// `EMFILE` from `inotify_init1`.
    case instanceLimit
    case system(call: String, Errno)

    public var description: String {
        switch self {
        case .instanceLimit:
            "cannot create an inotify instance: the per-user limit is reached; raise it with "
                + "`sysctl fs.inotify.max_user_instances=512` (and in /etc/sysctl.d/ to keep it), or stop other watchers"
        case .system(let call, let error):
            "\(call) failed: \(error)"
        }
    }
}
