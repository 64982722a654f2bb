#if canImport(Glibc)
import Glibc
#endif
public import SystemPackage

/// One entry of a directory, as `readdir` reports it.
public struct DirectoryEntry: Sendable {
    /// The entry's name, exactly as stored (it need not be UTF-8).
    public var name: FilePath.Component
    /// Whether the entry is a directory (from `d_type`, or `lstat` where the filesystem
    /// does not report types).
    public var isDirectory: Bool
    /// The entry's `lstat` status, when asked for and the entry is not a directory (nil if
    /// it vanished since `readdir`).
    public var status: FileStatus?
}

/// Reading directories and links without following anything.
public enum Directory {
    /// Calls `body` for each entry of the directory at `path`, except `.` and `..`; with
    /// `statusOfFiles`, each entry that is not a directory comes with its status, taken
    /// relative to the open directory (no path to build or walk per file).
    ///
    /// The corresponding C functions are `opendir`, `readdir`, `fstatat` and `lstat`.
    public static func forEachEntry(of path: FilePath, statusOfFiles: Bool = false, _ body: (DirectoryEntry) -> Void) throws(Errno) {
        guard let handle = path.withPlatformString({ opendir($0) }) else { throw Errno(rawValue: errno) }
        defer { closedir(handle) }
        // A record is only as long as its name (d_reclen), not sizeof(dirent): copying
        // `entry.pointee` read past the end of the last record in libc's buffer, which crashed
        // the crawl when that record ended at the edge of a page. Fields are read in place.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let typeOffset = MemoryLayout<dirent>.offset(of: \dirent.d_type)!
        while let entry = readdir(handle) {
            let record = UnsafeRawPointer(entry)
            let name = record.advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            if name[0] == 46 && (name[1] == 0 || (name[1] == 46 && name[2] == 0)) { continue }  // "." and ".."
            guard let component = FilePath.Component(platformString: name) else { continue }
            var type = Int32(record.load(fromByteOffset: typeOffset, as: UInt8.self))
            if type == Int32(DT_UNKNOWN) {
                var st = stat()
                if fstatat(dirfd(handle), name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                    type = Int32(DT_DIR)
                }
            }
            var status: FileStatus?
            if statusOfFiles, type != Int32(DT_DIR) {
                var st = stat()
                if fstatat(dirfd(handle), name, &st, AT_SYMLINK_NOFOLLOW) == 0 { status = FileStatus(st) }
            }
            body(DirectoryEntry(name: component, isDirectory: type == Int32(DT_DIR), status: status))
        }
    }

    /// The destination of the symbolic link at `path`, as stored (not resolved).
    ///
    /// The corresponding C function is `readlink`.
    public static func symbolicLinkDestination(_ path: FilePath) throws(Errno) -> FilePath {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = path.withPlatformString { readlink($0, &buffer, buffer.count - 1) }
        guard n >= 0 else { throw Errno(rawValue: errno) }
        buffer[n] = 0
        return buffer.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }
}
