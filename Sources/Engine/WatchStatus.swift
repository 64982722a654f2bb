import FileAccess
import Foundation
import Index
package import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// What `docent watch` is doing, as `docent status` reports it (its raw value is the word
/// written in the status file and printed).
package enum WatchState: String, Codable, Sendable, CaseIterable {
    /// Reconciling the index with the disk.
    case starting
    /// On battery with `battery: defer`: the reconcile waits for mains power.
    case deferred
    /// Changes waiting or being applied.
    case indexing
    /// Settled: the index matches what was seen.
    case watching
    /// `docent pause`: nothing read, nothing compared (see `WatchStatus.paused`).
    case paused
    /// The index's disk takes no writes (see `WatchStatus.problem`); changes are kept.
    case waiting
    /// The watcher has ended.
    case stopped

    /// The state a running watcher is in: a pure function of what holds it back and what waits.
    package static func of(paused: Bool, storageFailing: Bool, reconciled: Bool, onBattery: Bool,
                          changesWaiting: Int, applying: Bool) -> WatchState {
        if paused { return .paused }
        if storageFailing { return .waiting }
        if !reconciled { return onBattery ? .deferred : .starting }
        return changesWaiting == 0 && !applying ? .watching : .indexing
    }
}

/// What a running `docent watch` publishes for `docent status`: written atomically (a
/// temporary file renamed over the old one) beside the index.
package struct WatchStatus: Codable, Sendable, Equatable {
    package var state: WatchState
    /// What keeps the watcher from its work, when something does (a full disk).
    package var problem: String?
    /// Why it is paused ("paused" state): `docent pause`, and until when.
    package var paused: String?
    /// What waits for mains power, on battery (`battery: defer`).
    package var deferred: String?
    /// Changes seen but not yet in the index.
    package var pending: Int
    package var watchedDirectories: Int
    /// The first of the unwatched directories (`WatcherStatistics.listedUnwatched`).
    package var unwatchedDirectories: [String]
    /// How many directories are unwatched, when any are.
    package var unwatchedCount: Int? = nil
    /// How many directories are unwatched (a status from before the count: those listed).
    package var unwatched: Int { unwatchedCount ?? unwatchedDirectories.count }
    package var overflows: Int
    package var files: Int
    package var missingRoots: [String]
    /// Directories compared with the index at an interval, and why (network and FUSE mounts).
    package var polled: [PolledDirectory]? = nil
    /// That interval, in seconds.
    package var pollInterval: Double? = nil
    package var roots: [String]
    package var pid: Int32
    /// When the watcher started and when it last applied changes (seconds since the epoch).
    package var started: Double
    package var lastApplied: Double?

    /// Reads the status a watcher published at `path`.
    package static func read(from path: String) -> WatchStatus? {
        guard let data = WholeFile.read(path) else { return nil }
        return try? JSONDecoder().decode(WatchStatus.self, from: data)
    }

    /// The status of the watcher running for the index whose status file is `path`: nil when
    /// none runs (none published, it said it stopped, or its process is gone).
    package static func running(at path: String) -> WatchStatus? {
        read(from: path).flatMap { $0.state != .stopped && kill($0.pid, 0) == 0 ? $0 : nil }
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

/// `docent pause`'s request, a file beside the index that `docent watch` reads at start and
/// on SIGUSR2 (so a pause outlives a restart of the watcher).
package struct PauseRequest: Codable, Sendable, Equatable {
    /// When it was asked for, and when it ends (nil: at `docent resume`), in seconds since the epoch.
    package var since: Double
    package var until: Double?

    package init(since: Double, until: Double?) {
        (self.since, self.until) = (since, until)
    }

    package static func read(from path: String) -> PauseRequest? {
        guard let data = WholeFile.read(path) else { return nil }
        return try? JSONDecoder().decode(PauseRequest.self, from: data)
    }

    package func write(to path: String) throws {
        let data = try JSONEncoder().encode(self)
        try PrivateStorage.replace(path, with: [UInt8](data), temporary: path + ".tmp")
    }

    /// A time of day as people read it (local time, with the date when not today).
    package static func clock(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        let date = Date(timeIntervalSince1970: seconds)
        formatter.dateFormat = Calendar.current.isDateInToday(date) ? "HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

extension IndexStore {
    /// Where `docent pause` leaves its request for this index's watcher.
    package var pausePath: String { path + ".paused" }
}
