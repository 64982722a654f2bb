public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small files Docent keeps for itself (settings, status, records, flags), read whole.
///
/// Not `FileManager.contents(atPath:)`: swift-foundation's leaks a 4 KiB buffer for every
/// empty file it reads (found by LeakSanitizer in the test suite; a twelve-line program
/// shows it), and an empty status or cache file read by a long-running watcher would leak
/// each time. Not `ReadOnlyFile` either: that is for the user's files, and refuses a symbolic
/// link, where a settings file linked from a dotfiles repository must be read.
public enum WholeFile {
    /// The bytes of the file at `path` (at most `limit`), or nil when it cannot be opened or read.
    public static func read(_ path: String, limit: Int = 256 << 20) -> Data? {
        let fd = retryingEINTR { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { buffer in
                retryingEINTR { Glibc.read(fd, buffer.baseAddress, min(buffer.count, limit - bytes.count)) }
            }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return Data(bytes)
    }
}
