import FileAccess
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
        let status: FileStatus
        do {
            status = try FileStatus.lstat(root)
        } catch {
            onError(root, error)
            return
        }
        guard status.kind == .directory else {
            visit(root)
            return
        }
        var pending: [FilePath] = [root]
        while let dir = pending.popLast() {
            var subdirectories: [FilePath] = []
            do {
                try Directory.forEachEntry(of: dir) { entry in
                    let path = dir.appending(entry.name)
                    if !entry.isDirectory {
                        visit(path)
                    } else if !excludedDirectoryNames.contains(entry.name.string) {
                        subdirectories.append(path)
                    }
                }
            } catch {
                onError(dir, error)
            }
            pending.append(contentsOf: subdirectories.reversed())
        }
    }
}
