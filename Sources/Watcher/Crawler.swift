#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Walks a directory tree without following symbolic links, reporting every entry that is
/// not a directory (regular files, links, FIFOs, sockets, devices).
///
/// Uses `opendir`/`readdir` and the entry type the kernel reports (`d_type`), falling back
/// to `lstat` where a filesystem does not report it. Symbolic links are reported, never
/// followed, so a link loop cannot trap the walk. Unreadable directories go to `onError`.
public struct Crawler: Sendable {
    /// Directory names never entered (for example `.git`).
    public var excludedDirectoryNames: Set<String>

    /// A crawler that skips directories named in `excludedDirectoryNames`.
    public init(excludedDirectoryNames: Set<String> = []) {
        self.excludedDirectoryNames = excludedDirectoryNames
    }

    /// Calls `visit` for every non-directory entry under `root` (or `root` itself when it
    /// is not a directory), and `onError` for every path that could not be read.
    ///
    /// The corresponding C functions are `opendir`, `readdir` and `lstat`.
    public func walk(_ root: FilePath, visit: (FilePath) -> Void, onError: (FilePath, Errno) -> Void = { _, _ in }) {
        var s = stat()
        guard root.withPlatformString({ lstat($0, &s) }) == 0 else {
            onError(root, Errno(rawValue: errno))
            return
        }
        guard (s.st_mode & S_IFMT) == S_IFDIR else {
            visit(root)
            return
        }
        var pending: [FilePath] = [root]
        while let dir = pending.popLast() {
            guard let handle = dir.withPlatformString({ opendir($0) }) else {
                onError(dir, Errno(rawValue: errno))
                continue
            }
            var subdirectories: [FilePath] = []
            while let entry = readdir(handle) {
                let nameBytes = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [CChar] in
                    let chars = raw.bindMemory(to: CChar.self)
                    let length = strnlen(chars.baseAddress!, chars.count)
                    return Array(chars[..<length]) + [0]
                }
                if nameBytes == [46, 0] || nameBytes == [46, 46, 0] { continue }  // "." and ".."
                let component = nameBytes.withUnsafeBufferPointer { FilePath.Component(platformString: $0.baseAddress!) }
                guard let component else { continue }
                let path = dir.appending(component)
                var type = Int32(entry.pointee.d_type)
                if type == Int32(DT_UNKNOWN) {
                    var st = stat()
                    if path.withPlatformString({ lstat($0, &st) }) != 0 { onError(path, Errno(rawValue: errno)); continue }
                    type = (st.st_mode & S_IFMT) == S_IFDIR ? Int32(DT_DIR) : Int32(DT_REG)
                }
                if type == Int32(DT_DIR) {
                    if !excludedDirectoryNames.contains(component.string) { subdirectories.append(path) }
                } else {
                    visit(path)
                }
            }
            closedir(handle)
            pending.append(contentsOf: subdirectories.reversed())
        }
    }
}
