import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Changes waiting to settle, one per path: a file written many times in a row is
/// processed once, a file created and deleted within the settle delay leaves nothing, a
/// temporary file renamed over a document becomes a change of the document.
///
/// Pure: time is passed in, so every rule is tested without a clock or a disk.
public struct PendingChanges: Sendable {
    /// How long a path must be quiet before its change is handed on.
    public var settle: Duration
    /// The longest a change waits, however busy the path (a file written continuously).
    public var maximumDelay: Duration

    private struct Entry: Sendable {
        var change: FileChange
        var first: ContinuousClock.Instant
        var last: ContinuousClock.Instant
        var sequence: Int
    }
    private var entries: [HashedPath: Entry] = [:]
    private var sequence = 0
    /// Every deadline an entry was given, soonest first; one whose entry has since moved on
    /// (touched again, taken, dropped) is skipped when met. The soonest is always a live one,
    /// so the next deadline and the settled changes cost no pass over every waiting path —
    /// during a burst of thousands, each read of events did two.
    private var deadlines = DeadlineHeap()

    public init(settle: Duration = .milliseconds(30), maximumDelay: Duration = .seconds(1)) {
        self.settle = settle
        self.maximumDelay = maximumDelay
    }

    /// How many paths wait.
    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// When the next change will be ready, if any waits.
    public var nextDeadline: ContinuousClock.Instant? { deadlines.first?.deadline }

    /// Files a change, merged with what already waits for the same path. `isDirectory` false
    /// says the change's path (a move's source) is a file: nothing can wait under it, and the
    /// look through every waiting change for those under it is skipped (bursts of atomic
    /// saves, each a rename, or of deletions made that look quadratic: minutes for 3,000 files
    /// behind a slow index in a debug build).
    public mutating func add(_ change: FileChange, at now: ContinuousClock.Instant, isDirectory: Bool = true) {
        defer { dropStaleDeadlines() }
        switch change {
        case .changed(let path):
            if case .moved = entries[HashedPath(path)]?.change {
                touch(path, at: now)  // the move is applied first, then its contents compared
            } else {
                put(.changed(path), at: path, now: now)
            }
        case .removed(let path):
            var origin: FilePath?
            if case .moved(let from, _) = entries[HashedPath(path)]?.change { origin = from }
            if isDirectory { for key in entries.keys where key.path != path && key.path.isWithin(path) { entries[key] = nil } }
            put(.removed(path), at: path, now: now)
            if let origin { put(.removed(origin), at: origin, now: now) }
        case .moved(let from, let to):
            var source = from
            if let previous = entries[HashedPath(from)] {
                if case .moved(let earlier, _) = previous.change { source = earlier }
                entries[HashedPath(from)] = nil
            }
            put(.moved(from: source, to: to), at: to, now: now)
            guard isDirectory else { return }
            // Changes waiting under a renamed directory follow it, and are applied after it.
            let within = entries.filter { $0.key.path != to && ($0.key.path.isWithin(from) || Self.source(of: $0.value.change)?.isWithin(from) == true) }
            for (key, entry) in within.sorted(by: { $0.value.sequence < $1.value.sequence }) {
                entries[key] = nil
                sequence += 1
                var moved = entry
                moved.change = Self.rebase(entry.change, from: from, to: to)
                moved.sequence = sequence
                entries[HashedPath(moved.change.path)] = moved
                schedule(moved, at: moved.change.path)
            }
        case .rescan(let path):
            put(.rescan(path), at: path, now: now)
        }
    }

    /// The changes whose paths have been quiet long enough, in the order they were first seen.
    public mutating func takeSettled(at now: ContinuousClock.Instant) -> [FileChange] {
        var ready: [Entry] = []
        while let soonest = deadlines.first, soonest.deadline <= now {
            deadlines.removeFirst()
            guard let entry = entries[HashedPath(soonest.path)], isCurrent(soonest, entry) else { continue }
            entries[HashedPath(soonest.path)] = nil
            ready.append(entry)
        }
        dropStaleDeadlines()
        return ready.sorted { $0.sequence < $1.sequence }.map(\.change)
    }

    /// Everything that waits, at once (for a shutdown or a test).
    public mutating func takeAll() -> [FileChange] {
        defer {
            entries.removeAll()
            deadlines = DeadlineHeap()
        }
        return entries.values.sorted { $0.sequence < $1.sequence }.map(\.change)
    }

    private func deadline(_ entry: Entry) -> ContinuousClock.Instant {
        min(entry.last + settle, entry.first + maximumDelay)
    }

    private mutating func put(_ change: FileChange, at path: FilePath, now: ContinuousClock.Instant) {
        var entry: Entry
        if let existing = entries[HashedPath(path)] {
            entry = existing
            entry.change = change
            entry.last = now
        } else {
            sequence += 1
            entry = Entry(change: change, first: now, last: now, sequence: sequence)
        }
        entries[HashedPath(path)] = entry
        schedule(entry, at: path)
    }

    private mutating func touch(_ path: FilePath, at now: ContinuousClock.Instant) {
        guard var entry = entries[HashedPath(path)] else { return }
        entry.last = now
        entries[HashedPath(path)] = entry
        schedule(entry, at: path)
    }

    private mutating func schedule(_ entry: Entry, at path: FilePath) {
        deadlines.insert(Deadline(deadline: deadline(entry), path: path, sequence: entry.sequence, last: entry.last))
    }

    /// Whether `scheduled` is the deadline `entry` has now (not one from before a touch).
    private func isCurrent(_ scheduled: Deadline, _ entry: Entry) -> Bool {
        entry.sequence == scheduled.sequence && entry.last == scheduled.last
    }

    /// Keeps the soonest deadline a live one.
    private mutating func dropStaleDeadlines() {
        while let soonest = deadlines.first {
            if let entry = entries[HashedPath(soonest.path)], isCurrent(soonest, entry) { return }
            deadlines.removeFirst()
        }
    }

    private static func rebase(_ change: FileChange, from: FilePath, to: FilePath) -> FileChange {
        func moved(_ path: FilePath) -> FilePath { path.isWithin(from) ? path.replacingPrefix(from, with: to) : path }
        switch change {
        case .changed(let path): return .changed(moved(path))
        case .removed(let path): return .removed(moved(path))
        case .rescan(let path): return .rescan(moved(path))
        case .moved(let source, let destination): return .moved(from: moved(source), to: moved(destination))
        }
    }

    private static func source(of change: FileChange) -> FilePath? {
        if case .moved(let from, _) = change { return from }
        return nil
    }
}

/// A deadline given to a waiting path (`PendingChanges`), with what tells whether it is
/// still that path's: the entry's sequence number and the time it was last touched.
struct Deadline: Sendable {
    var deadline: ContinuousClock.Instant
    var path: FilePath
    var sequence: Int
    var last: ContinuousClock.Instant
}

/// A binary min-heap of deadlines: the soonest first.
struct DeadlineHeap: Sendable {
    private var items: [Deadline] = []

    var first: Deadline? { items.first }
    var count: Int { items.count }

    mutating func insert(_ item: Deadline) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var soonest = parent
            if left < items.count, items[left].deadline < items[soonest].deadline { soonest = left }
            if right < items.count, items[right].deadline < items[soonest].deadline { soonest = right }
            guard soonest != parent else { return }
            items.swapAt(parent, soonest)
            parent = soonest
        }
    }
}

/// A path as a dictionary key, hashed a buffer at a time: `FilePath`'s own hash combines one
/// byte at a time, and at a burst's pace that was the watcher thread's costliest work.
struct HashedPath: Hashable, Sendable {
    let path: FilePath

    init(_ path: FilePath) { self.path = path }

    func hash(into hasher: inout Hasher) {
        path.withPlatformString { hasher.combine(bytes: UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
    }

    static func == (a: HashedPath, b: HashedPath) -> Bool { a.path == b.path }
}
