public import FileAccess
public import Foundation

/// What a file wrapper knows of its file's attributes (Foundation's `fileAttributes`
/// dictionary, typed).
public struct FileAttributes: Sendable, Hashable, Codable {
    /// What kind of file it is.
    public var kind: FileKind
    /// Size in bytes.
    public var size: Int64
    /// Last modification.
    public var modificationDate: Date?
    /// Last status change (permissions, owner, links, name).
    public var changeDate: Date?
    /// Permission bits (`0o644`).
    public var posixPermissions: UInt32?
    /// Device and inode: the file's identity, kept across renames.
    public var device: UInt64?
    /// The file's inode number, when the file system gives one.
    public var inode: UInt64?

    /// The attributes `lstat` gave.
    package init(_ status: FileStatus) {
        kind = status.kind
        size = status.size
        modificationDate = Date(timeIntervalSince1970: Double(status.modified) / 1e9)
        changeDate = Date(timeIntervalSince1970: Double(status.changed) / 1e9)
        posixPermissions = status.mode & 0o7777
        device = status.device
        inode = status.inode
    }

    /// Attributes of a wrapper that lives in memory.
    public init(kind: FileKind, size: Int64) {
        self.kind = kind
        self.size = size
    }
}
