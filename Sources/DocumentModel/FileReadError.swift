public import SystemPackage

/// A file could not be read: which one, what the system said, and what to do.
public struct FileReadError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: FilePath?
    /// The system's error.
    public var errno: Errno?
    /// What went wrong, for a person.
    public var message: String

    package init(path: FilePath?, errno: Errno?, message: String) {
        self.path = path
        self.errno = errno
        self.message = message
    }

    init(path: FilePath, _ errno: Errno) {
        let remedy: String
        switch errno {
        case .permissionDenied: remedy = " (Docent runs as you; check the file's permissions)"
        case .noSuchFileOrDirectory: remedy = " (it was removed or renamed while being read)"
        case .resourceTemporarilyUnavailable: remedy = " (it was replaced while being read; it will be read again)"
        case .tooManySymbolicLinkLevels: remedy = " (it is a symbolic link, which Docent does not follow)"
        case .notPermitted: remedy = " (it is not a regular file)"
        default: remedy = ""
        }
        self.init(path: path, errno: errno, message: "\(errno)\(remedy)")
    }

    public var description: String { message }
}
