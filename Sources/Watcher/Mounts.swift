#if canImport(Glibc)
import Glibc
#endif
import CFileSystem
import FileAccess
public import SystemPackage

/// One line of `/proc/self/mountinfo`: where a file system is mounted and its type.
public struct Mount: Sendable, Hashable {
    public var path: FilePath
    /// The type as the kernel names it: nfs4, cifs, fuse.sshfs, 9p, …
    public var type: String
    public var source: String

    public init(path: FilePath, type: String, source: String) {
        (self.path, self.type, self.source) = (path, type, source)
    }

    /// The mounts of this process's namespace, in mount order (nil when /proc cannot be read).
    public static func current(from file: String = "/proc/self/mountinfo") -> [Mount]? {
        guard let bytes = WholeFile.read(file) else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// mountinfo's lines: `id parent major:minor root mountpoint options [optional…] - type source superoptions`,
    /// with space, tab, newline and backslash in names written as octal escapes (`\040`).
    public static func parse(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 7, let dash = fields.dropFirst(6).firstIndex(of: "-"), dash + 1 < fields.count else { return nil }
            let type = String(fields[dash + 1])
            let source = dash + 2 < fields.count ? unescaped(fields[dash + 2]) : ""
            return Mount(path: FilePath(unescaped(fields[4])), type: type, source: source)
        }
    }

    static func unescaped(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = [], utf8 = Array(field.utf8), i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count,
               let value = UInt8(String(decoding: utf8[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// File systems whose changes inotify cannot see (made on another machine, or behind a
/// FUSE daemon's back), by `statfs`'s magic number.
public enum RemoteFileSystem {
    static let names: [Int: String] = [
        0x6969: "NFS", 0x517B: "SMB", 0xFF53_4D42: "CIFS/SMB", 0xFE53_4D42: "SMB2", 0x6573_5546: "FUSE", 0x0102_1997: "9p",
        0x00C3_6400: "Ceph", 0x5346_414F: "AFS", 0x7375_7245: "Coda", 0x564C: "NCP", 0x0116_1970: "GFS2", 0x0BD0_0BD0: "Lustre",
        0x1366_1366: "OrangeFS", 0x6B41_4653: "kAFS",
    ]

    /// The kind of remote or FUSE file system `path` is on, or nil for a local one.
    public static func kind(of path: FilePath) -> String? {
        let type = path.withPlatformString { docent_fs_type($0) }
        guard type >= 0 else { return nil }
        return names[Int(UInt32(truncatingIfNeeded: type))]
    }
}

/// File systems the kernel makes up as they are read (processes, devices, its own state):
/// their "files" are not documents, and reading some of them blocks or never ends.
public enum VirtualFileSystem {
    static let names: [Int: String] = [
        0x9FA0: "proc", 0x6265_6572: "sysfs", 0x6462_6720: "debugfs", 0x7472_6163: "tracefs", 0x6367_7270: "cgroup2",
        0x0027_E0EB: "cgroup", 0x7363_6673: "securityfs", 0xCAFE_4A11: "bpf", 0x1CD1: "devpts", 0x6265_6570: "configfs",
        0x6165_676C: "pstore", 0x6573_5543: "fusectl", 0x1980_0202: "mqueue", 0xDE5E_81E4: "efivarfs", 0x4249_4E4D: "binfmt_misc",
        0x4244_4346: "tracefs", 0x0000_9FA2: "usbdevfs",
    ]

    /// The kind of kernel-made file system `path` is on (following a symbolic link), or nil.
    public static func kind(of path: FilePath) -> String? {
        let type = path.withPlatformString { docent_fs_type($0) }
        guard type >= 0 else { return nil }
        return names[Int(UInt32(truncatingIfNeeded: type))]
    }
}

