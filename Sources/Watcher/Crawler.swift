public import FileAccess
public import SystemPackage

/// Walks a directory tree without following symbolic links.
///
/// Uses `opendir`/`readdir` and the entry type the kernel reports (`d_type`), falling back
/// to `lstat` where a filesystem does not report it. Symbolic links are reported, never
/// followed, so a link loop cannot trap the walk. Excluded entries are neither reported nor
/// entered, nor is a directory holding a marker file (`.noindex`). Unreadable directories go
/// to `onError`. Memory holds one directory's entries and the directories still to visit,
/// never the whole tree.
public struct Crawler: Sendable {
    /// What is never reported nor entered.
    public var exclusions: Exclusions

    /// A crawler that leaves out what `exclusions` match.
    public init(exclusions: Exclusions = Exclusions()) {
        self.exclusions = exclusions
    }

    /// Calls `visit` once for each directory under `root` (itself included, depth first,
    /// parents before children) with its entries.
    ///
    /// The corresponding C functions are `opendir`, `readdir` and `lstat`.
    public func walkDirectories(_ root: FilePath, statusOfFiles: Bool = false, visit: (CrawledDirectory) -> Void,
                                onError: (FilePath, Errno) -> Void = { _, _ in }) {
        var pending: [FilePath] = [root]
        while let path = pending.popLast() {
            var directory = CrawledDirectory(path: path)
            var marked = false
            let checkingPaths = exclusions.mayExcludePaths(in: path)
            do {
                try Directory.forEachEntry(of: path, statusOfFiles: statusOfFiles) { entry in
                    guard !marked else { return }
                    switch exclusions.verdict(entry.name, in: path, checkingPaths: checkingPaths) {
                    case .marker: marked = true; return
                    case .excluded: return
                    case .kept: break
                    }
                    if entry.isDirectory {
                        directory.subdirectories.append(entry.name)
                    } else {
                        directory.files.append(entry.name)
                        if statusOfFiles { directory.fileStatuses.append(entry.status) }
                    }
                }
            } catch {
                onError(path, error)
                continue
            }
            if marked { continue }  // a marker (`.noindex`): neither visited nor entered
            visit(directory)
            pending.append(contentsOf: directory.subdirectories.reversed().map { path.appending($0) })
        }
    }

    /// Calls `visit` for every non-directory entry under `root` (or `root` itself when it
    /// is not a directory), and `onError` for every path that could not be read.
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
        walkDirectories(root, visit: { directory in
            for name in directory.files { visit(directory.path.appending(name)) }
        }, onError: onError)
    }
}

/// One directory as the crawler found it: the names of its entries that are not excluded.
public struct CrawledDirectory: Sendable {
    public var path: FilePath
    /// Entries that are not directories: regular files, links, FIFOs, sockets, devices.
    public var files: [FilePath.Component] = []
    /// With `statusOfFiles`: each file's `lstat` status, in the order of `files` (nil for
    /// one that vanished since `readdir`).
    public var fileStatuses: [FileStatus?] = []
    public var subdirectories: [FilePath.Component] = []
}
