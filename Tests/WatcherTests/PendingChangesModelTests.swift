import SystemPackage
import Testing
@testable import Watcher

/// `PendingChanges` against the plain implementation it replaced (every waiting path looked
/// at for each deadline and each take), over seeded random sequences of changes and takes:
/// the same changes settle at the same moments, in the same order, with the same next deadline.
@Suite("Pending changes: the deadline heap against a pass over every path")
struct PendingChangesModelTests {
    @Test("Random sequences", arguments: 0..<40)
    func sequences(seed: Int) {
        var random = Generator(seed: UInt64(seed) &+ 0x5EED)
        let paths: [FilePath] = ["/r/a", "/r/b", "/r/d", "/r/d/x", "/r/d/y", "/r/d/z/w", "/r/e", "/r/e/x", "/r/f"]
        let t0 = ContinuousClock.now
        var now = t0
        var pending = PendingChanges(settle: .milliseconds(30), maximumDelay: .milliseconds(150))
        var reference = ReferencePendingChanges(settle: .milliseconds(30), maximumDelay: .milliseconds(150))
        for step in 0..<400 {
            now += .milliseconds(Int64(random.below(3) == 0 ? random.below(60) : random.below(8)))
            let path = paths[random.below(paths.count)], other = paths[random.below(paths.count)]
            let change: FileChange
            switch random.below(10) {
            case 0..<5: change = .changed(path)
            case 5..<7: change = .removed(path)
            case 7..<9: change = .moved(from: path, to: other)
            default: change = .rescan(path)
            }
            let isDirectory = random.below(2) == 0
            pending.add(change, at: now, isDirectory: isDirectory)
            reference.add(change, at: now, isDirectory: isDirectory)
            #expect(pending.nextDeadline == reference.nextDeadline, "seed \(seed), step \(step): next deadline")
            #expect(pending.count == reference.count)
            if random.below(4) == 0 {
                let at = now + .milliseconds(Int64(random.below(200)))
                #expect(pending.takeSettled(at: at) == reference.takeSettled(at: at), "seed \(seed), step \(step): settled")
                #expect(pending.nextDeadline == reference.nextDeadline)
            }
        }
        #expect(pending.takeAll() == reference.takeAll())
        #expect(pending.nextDeadline == nil)
    }

    /// A seeded generator (SplitMix64): a failing seed runs again alike.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func below(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }
}

/// The implementation before the deadline heap, kept as the model: simple enough to be read
/// as the rules themselves.
struct ReferencePendingChanges {
    /// How long a path must be quiet before its change is handed on.
    var settle: Duration
    /// The longest a change waits, however busy the path (a file written continuously).
    var maximumDelay: Duration

    private struct Entry: Sendable {
        var change: FileChange
        var first: ContinuousClock.Instant
        var last: ContinuousClock.Instant
        var sequence: Int
    }
    private var entries: [FilePath: Entry] = [:]
    private var sequence = 0

    init(settle: Duration = .milliseconds(30), maximumDelay: Duration = .seconds(1)) {
        self.settle = settle
        self.maximumDelay = maximumDelay
    }

    /// How many paths wait.
    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// When the next change will be ready, if any waits.
    var nextDeadline: ContinuousClock.Instant? { entries.values.map(deadline).min() }

    /// Files a change, merged with what already waits for the same path. `isDirectory` false
    /// says the change's path (a move's source) is a file: nothing can wait under it, and the
    /// look through every waiting change for those under it is skipped (bursts of atomic
    /// saves, each a rename, or of deletions made that look quadratic: minutes for 3,000 files
    /// behind a slow index in a debug build).
    mutating func add(_ change: FileChange, at now: ContinuousClock.Instant, isDirectory: Bool = true) {
        switch change {
        case .changed(let path):
            if case .moved = entries[path]?.change {
                touch(path, at: now)  // the move is applied first, then its contents compared
            } else {
                put(.changed(path), at: path, now: now)
            }
        case .removed(let path):
            var origin: FilePath?
            if case .moved(let from, _) = entries[path]?.change { origin = from }
            if isDirectory { for key in entries.keys where key != path && key.isWithin(path) { entries[key] = nil } }
            put(.removed(path), at: path, now: now)
            if let origin { put(.removed(origin), at: origin, now: now) }
        case .moved(let from, let to):
            var source = from
            if let previous = entries[from] {
                if case .moved(let earlier, _) = previous.change { source = earlier }
                entries[from] = nil
            }
            put(.moved(from: source, to: to), at: to, now: now)
            guard isDirectory else { return }
            // Changes waiting under a renamed directory follow it, and are applied after it.
            let within = entries.filter { $0.key != to && ($0.key.isWithin(from) || Self.source(of: $0.value.change)?.isWithin(from) == true) }
            for (key, entry) in within.sorted(by: { $0.value.sequence < $1.value.sequence }) {
                entries[key] = nil
                sequence += 1
                var moved = entry
                moved.change = Self.rebase(entry.change, from: from, to: to)
                moved.sequence = sequence
                entries[moved.change.path] = moved
            }
        case .rescan(let path):
            put(.rescan(path), at: path, now: now)
        }
    }

    /// The changes whose paths have been quiet long enough, in the order they were first seen.
    mutating func takeSettled(at now: ContinuousClock.Instant) -> [FileChange] {
        let ready = entries.filter { deadline($0.value) <= now }
        for key in ready.keys { entries[key] = nil }
        return ready.values.sorted { $0.sequence < $1.sequence }.map(\.change)
    }

    /// Everything that waits, at once (for a shutdown or a test).
    mutating func takeAll() -> [FileChange] {
        defer { entries.removeAll() }
        return entries.values.sorted { $0.sequence < $1.sequence }.map(\.change)
    }

    private func deadline(_ entry: Entry) -> ContinuousClock.Instant {
        min(entry.last + settle, entry.first + maximumDelay)
    }

    private mutating func put(_ change: FileChange, at path: FilePath, now: ContinuousClock.Instant) {
        if var entry = entries[path] {
            entry.change = change
            entry.last = now
            entries[path] = entry
        } else {
            sequence += 1
            entries[path] = Entry(change: change, first: now, last: now, sequence: sequence)
        }
    }

    private mutating func touch(_ path: FilePath, at now: ContinuousClock.Instant) {
        entries[path]?.last = now
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
