import FileAccess
public import SystemPackage

/// The first bytes of a regular file, read once, bounded, and kept for whoever opens the
/// file next (the document that reads it), so nothing is read twice.
public struct FilePrefix: Sendable {
    /// The bytes read, at most the limit asked for.
    public var bytes: [UInt8]
    /// Whether `bytes` is the whole file.
    public var isWholeFile: Bool

    /// A prefix of bytes already in hand.
    public init(bytes: [UInt8], isWholeFile: Bool) {
        self.bytes = bytes
        self.isWholeFile = isWholeFile
    }

    /// Reads at most `limit` bytes of the regular file at `path` through `ReadOnlyFile`
    /// (read-only, no symbolic links followed, special files refused).
    public static func read(_ path: FilePath, limit: Int, expected: FileStatus? = nil) throws(Errno) -> FilePrefix {
        try read(ReadOnlyFile(path, expected: expected), limit: limit)
    }

    /// Reads at most `limit` bytes from the start of a file already open.
    public static func read(_ file: ReadOnlyFile, limit: Int) throws(Errno) -> FilePrefix {
        let bytes = try file.read(upTo: limit)
        return FilePrefix(bytes: bytes, isWholeFile: file.status.size <= Int64(limit) && bytes.count == Int(file.status.size))
    }
}
