#if canImport(Glibc)
import Glibc
#endif

/// One event read from an inotify descriptor.
public struct InotifyEvent: Sendable, Hashable {
    /// The watch the event came through (-1 for a queue overflow).
    public var watch: Int32
    public var mask: UInt32
    /// Pairs the `IN_MOVED_FROM` and `IN_MOVED_TO` halves of one rename.
    public var cookie: UInt32
    /// The entry's name inside the watched directory; empty for events on the directory itself.
    public var name: [UInt8]

    public init(watch: Int32, mask: UInt32, cookie: UInt32 = 0, name: [UInt8] = []) {
        (self.watch, self.mask, self.cookie, self.name) = (watch, mask, cookie, name)
    }

    public func has(_ flag: UInt32) -> Bool { mask & flag != 0 }
    public var isDirectory: Bool { has(Inotify.isDirectory) }

    /// The events in `buffer`, as the kernel lays them out: `struct inotify_event` followed
    /// by `len` bytes of NUL-padded name. A truncated tail is ignored.
    public static func decode(_ buffer: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= buffer.count {
            let watch = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            guard offset + header + length <= buffer.count else { break }
            let nameBytes = buffer[(offset + header)..<(offset + header + length)]
            let name = Array(nameBytes.prefix { $0 != 0 })
            events.append(InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: name))
            offset += header + length
        }
        return events
    }
}

/// The inotify flags Docent uses, as Swift constants.
public enum Inotify {
    public static let create = UInt32(IN_CREATE)
    public static let closeWrite = UInt32(IN_CLOSE_WRITE)
    public static let modify = UInt32(IN_MODIFY)
    public static let attributes = UInt32(IN_ATTRIB)
    public static let movedFrom = UInt32(IN_MOVED_FROM)
    public static let movedTo = UInt32(IN_MOVED_TO)
    public static let delete = UInt32(IN_DELETE)
    public static let deleteSelf = UInt32(IN_DELETE_SELF)
    public static let moveSelf = UInt32(IN_MOVE_SELF)
    public static let unmount = UInt32(IN_UNMOUNT)
    public static let ignored = UInt32(IN_IGNORED)
    public static let overflow = UInt32(IN_Q_OVERFLOW)
    public static let isDirectory = UInt32(IN_ISDIR)
    public static let onlyDirectory = UInt32(IN_ONLYDIR)
    public static let excludeUnlinked = UInt32(IN_EXCL_UNLINK)

    /// What a directory of an index is watched for: entries created, written, changed,
    /// moved and deleted, and the directory itself going away. `IN_ONLYDIR` refuses a path
    /// that was swapped for a file; `IN_EXCL_UNLINK` drops events of unlinked files still open.
    public static let directoryMask = create | closeWrite | modify | attributes | movedFrom | movedTo | delete
        | deleteSelf | moveSelf | onlyDirectory | excludeUnlinked
}
