#if canImport(Glibc)
public import Glibc
#endif
public import SystemPackage

/// What `lstat` says a path is.
public enum FileKind: String, Sendable, Hashable, Codable {
    case regular, directory, symbolicLink, fifo, socket, characterDevice, blockDevice, unknown

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .unknown
        }
    }

    /// The shared-mime-info type for a file that is not a regular file.
    public var inodeMIMEType: String? {
        switch self {
        case .regular: nil
        case .directory: "inode/directory"
        case .symbolicLink: "inode/symlink"
        case .fifo: "inode/fifo"
        case .socket: "inode/socket"
        case .characterDevice: "inode/chardevice"
        case .blockDevice: "inode/blockdevice"
        case .unknown: nil
        }
    }
}

/// The `lstat` fields an indexer compares to decide whether a file changed.
public struct FileStatus: Sendable, Hashable {
    public var kind: FileKind
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var mode: UInt32
    /// Modification time, nanoseconds since the epoch.
    public var modified: Int64
    /// Status change time, nanoseconds since the epoch.
    public var changed: Int64

    /// The fields of a `stat` structure.
    public init(_ s: stat) {
        kind = FileKind(mode: s.st_mode)
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        size = Int64(s.st_size)
        mode = UInt32(s.st_mode)
        modified = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
        changed = Int64(s.st_ctim.tv_sec) * 1_000_000_000 + Int64(s.st_ctim.tv_nsec)
    }

    /// `lstat(2)` of `path`, never following a final symbolic link.
    ///
    /// The corresponding C function is `lstat`.
    public static func lstat(_ path: FilePath) throws(Errno) -> FileStatus {
        var s = stat()
        let rc = path.withPlatformString { Glibc.lstat($0, &s) }
        guard rc == 0 else { throw Errno(rawValue: errno) }
        return FileStatus(s)
    }
}
