import FileAccess
import Foundation
import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// What a running `docent watch` publishes for `docent status`: written atomically (a
/// temporary file renamed over the old one) beside the index.
public struct WatchStatus: Codable, Sendable, Equatable {
    /// "starting" (reconciling the index with the disk), "indexing" (changes waiting or
    /// being applied), "watching" (settled: the index matches what was seen), "waiting"
    /// (the index's disk takes no writes: see `problem`), "stopped".
    public var state: String
    /// What keeps the watcher from its work, when something does (a full disk).
    public var problem: String?
    /// Changes seen but not yet in the index.
    public var pending: Int
    public var watchedDirectories: Int
    public var unwatchedDirectories: [String]
    public var overflows: Int
    public var files: Int
    public var missingRoots: [String]
    public var roots: [String]
    public var pid: Int32
    /// When the watcher started and when it last applied changes (seconds since the epoch).
    public var started: Double
    public var lastApplied: Double?

    /// Reads the status a watcher published at `path`.
    public static func read(from path: String) -> WatchStatus? {
        guard let data = WholeFile.read(path) else { return nil }
        return try? JSONDecoder().decode(WatchStatus.self, from: data)
    }

    /// Writes the status to `path` atomically.
    func write(to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return }
        // Private, as everything beside the index. On a full disk a new file cannot be made,
        // but the old one's block can be written over: a reader may then see a torn status
        // (read as none) for a moment, which is better than a status that never says "waiting".
        do {
            try PrivateStorage.replace(path, with: [UInt8](data), temporary: path + ".tmp")
        } catch {
            unlink(path + ".tmp")
            let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { Glibc.close(fd) }
            _ = data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            _ = ftruncate(fd, off_t(data.count))
        }
    }
}
