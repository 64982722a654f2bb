import CFileSystem
public import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Writing out what the kernel holds for a file system.
public enum FileSystemSync {
    /// Writes out everything cached for the file system holding `directory`, through a
    /// descriptor of the directory (never of a file SQLite has open: closing one would drop
    /// the POSIX locks its connections in this process hold on that file).
    ///
    /// The corresponding C function is `syncfs`.
    public static func sync(containing directory: String) throws(Errno) {
        if docent_syncfs_of(directory) != 0 { throw Errno(rawValue: errno) }
    }
}
