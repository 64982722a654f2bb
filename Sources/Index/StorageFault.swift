import FileAccess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A disk that refuses writes on cue, for tests of what cannot be caused at will: a
/// read-only remount while the index is open (the kernel refuses the remount), a quota.
/// (A full disk is tested for real, on a small tmpfs.)
///
/// With `DOCENT_INDEX_FAULT=FILE`, while FILE exists every write transaction fails, before
/// it starts, as SQLite fails it for the errno FILE names (`EROFS`, `EDQUOT` or `ENOSPC`).
struct StorageFault {
    let control: String

    static let configured: StorageFault? = ProcessInfo.processInfo.environment["DOCENT_INDEX_FAULT"]
        .flatMap { $0.isEmpty ? nil : StorageFault(control: $0) }

    /// The failure to report now, if the control file says so.
    func failure(path: String) -> IndexError? {
        guard let data = WholeFile.read(control) else { return nil }
        switch String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) {
        case "EROFS": return .storage(path: path, message: "attempt to write a readonly database (EROFS: read-only file system)", code: 8)
        case "EDQUOT": return .storage(path: path, message: "disk I/O error (EDQUOT: disk quota exceeded)", code: 778)
        default: return .storage(path: path, message: "database or disk is full (ENOSPC)", code: 13)
        }
    }
}
