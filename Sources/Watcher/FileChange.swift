public import SystemPackage

/// A change under the roots, as the index must apply it.
public enum FileChange: Sendable, Hashable {
    /// Created, written or its attributes changed: `lstat` it and compare with its row.
    case changed(FilePath)
    /// A file, or a directory and everything under it, is gone.
    case removed(FilePath)
    /// A file or directory was renamed within the roots: its rows follow it.
    case moved(from: FilePath, to: FilePath)
    /// Events under this directory were lost: compare it with the index from scratch.
    case rescan(FilePath)

    /// The path the change is filed under (a move's destination).
    public var path: FilePath {
        switch self {
        case .changed(let path), .removed(let path), .rescan(let path): path
        case .moved(_, let to): to
        }
    }
}

extension FilePath {
    /// Whether `self` is `directory` or lies under it.
    public func isWithin(_ directory: FilePath) -> Bool { starts(with: directory) }

    /// `self` with its leading `from` replaced by `to` (for paths within `from`).
    public func replacingPrefix(_ from: FilePath, with to: FilePath) -> FilePath {
        var result = to
        for component in components.dropFirst(from.components.count) { result.append(component) }
        return result
    }
}
