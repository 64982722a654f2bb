import Foundation
import Watcher

/// What a running `docent watch` publishes for `docent status`: written atomically (a
/// temporary file renamed over the old one) beside the index.
public struct WatchStatus: Codable, Sendable, Equatable {
    /// "starting" (reconciling the index with the disk), "indexing" (changes waiting or
    /// being applied), "watching" (settled: the index matches what was seen), "stopped".
    public var state: String
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
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(WatchStatus.self, from: data)
    }

    /// Writes the status to `path` atomically.
    func write(to path: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return }
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { return }
        _ = rename(temporary, path)
    }
}
