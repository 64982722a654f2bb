import CFileSystem
import DocentCLI
import ArgumentParser
import Dispatch
import Engine
import FileAccess
import Foundation
import Index
import Logging
import Synchronization
import SystemPackage
import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// `docent watch [ROOT...]`: keeps the index current as files change.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Reconcile the index with the roots, then keep it current as files change (inotify).",
        discussion: """
            Runs at idle CPU priority and does nothing while nothing changes. SIGINT or SIGTERM finishes the \
            batch in hand and exits 0; `docent pause` stops all its work until `docent resume` (SIGUSR2 makes it read \
            the request again). On battery it puts off its first reconcile and rescans until mains power (`battery:`). \
            One watcher per index: a second one exits with status 2, or waits with --wait.
            `docent status --json` reports state ("starting", "deferred", "indexing", "watching", "paused", "waiting"), \
            pending, watchedDirectories, unwatchedDirectories, polled and overflows while it runs.
            """
    )

    @Argument(help: "Directories to watch; none: the roots in config.yaml and the remembered ones.")
    var roots: [String] = []

    @OptionGroup var location: IndexLocation

    @Flag(help: "If another watcher holds the index, wait for it to exit instead of failing.")
    var wait = false

    @Option(help: "How long (ms) a file must be quiet before it is indexed.")
    var settle = 30

    @Flag(name: .shortAndLong, help: "Log every batch of changes.")
    var verbose = false

    @Option(help: "idle: every thread at nice 19 and SCHED_IDLE, a guest that yields to everything else (the default); normal: ordinary priority, for a machine always busy enough to starve an idle indexer.")
    var priority: WatchPriority = .idle

    func run() throws {
        Output.ignoreSIGPIPE()
        let settings = try Settings.loadForCommand()
        let session = try location.openForWriting()
        defer { session.finish() }
        let paths = try Roots.resolve(roots, in: session.index, settings: settings, command: "watch", keepMissing: true)
        try WatchLock.acquire(session.index, wait: wait)
        if priority == .idle { Priority.becomeBackground() }

        // On a terminal, the last line says what the watcher is doing; logs scroll above it.
        let line = Terminal.standardErrorIsTerminal ? LiveStatusLine() : nil
        Logs.bootstrap(level: verbose ? .debug : .info, statusLine: line)
        let logger = Logger(label: "docent.watch")
        var options = WatcherOptions()
        options.settle = .milliseconds(max(1, settle))
        options.pollInterval = .milliseconds(Int(settings.pollInterval * 1000))
        options.pollPaths = settings.pollPaths.map { FilePath($0) }
        // Test knobs for what cannot be caused on purpose: the watch limit, a queue overflow.
        let environment = ProcessInfo.processInfo.environment
        options.simulatedWatchLimit = environment["DOCENT_FAKE_WATCH_LIMIT"].flatMap(Int.init)
        options.simulatedQueueLimit = environment["DOCENT_FAKE_QUEUE_LIMIT"].flatMap(Int.init)
        if let milliseconds = environment["DOCENT_UNWATCHED_RESCAN_MS"].flatMap(Int.init) {
            options.unwatchedRescanInterval = .milliseconds(milliseconds)
        }
        let current = Locked<WatchService?>(nil)
        let terminating = Atomic<Bool>(false), damageReported = Atomic<Bool>(false)
        OwnThreads.on([SIGINT, SIGTERM]) {
            terminating.store(true, ordering: .releasing)
            logger.info("stopping: finishing the batch in hand")
            current.withLock { $0 }?.stop()
        }
        OwnThreads.on([SIGUSR1]) {
            // A reader met damage (see IndexLocation.failure): stop, check, rebuild, go on.
            damageReported.store(true, ordering: .releasing)
            current.withLock { $0 }?.stop()
        }
        OwnThreads.on([SIGUSR2]) {
            // `docent pause` or `docent resume` changed the request beside the index.
            current.withLock { $0 }?.reconsider()
        }
        // The service runs until stopped; a damaged index is copied aside, rebuilt from the
        // roots, and watched again — the new service's reconcile reads every file.
        while true {
            let service: WatchService
            do {
                service = try WatchService(index: session.index, roots: paths, settings: settings, options: options, logger: logger,
                                           onStatus: line.map(Self.showing))
            } catch {
                throw CommandFailure("\(error)")
            }
            current.withLock { $0 = service }
            if terminating.load(ordering: .acquiring) { break }
            do {
                try service.run()
            } catch let error as IndexError where error.isDamage {
                logger.error("\(error): rebuilding it")
                do { try session.rebuild(after: error) } catch { throw CommandFailure("\(error)") }
                continue
            } catch {
                throw CommandFailure("\(error)")
            }
            if terminating.load(ordering: .acquiring) { break }
            if damageReported.exchange(false, ordering: .acquiringAndReleasing) {
                logger.warning("a search found the index damaged: checking it")
                do { try session.checkOrRebuild(thorough: true) } catch { throw CommandFailure("\(error)") }
                continue
            }
            break
        }
        line?.clear()
        logger.info("stopped")
    }
}

/// SIGINT and SIGTERM turned into a call, so work in hand can finish before exit.
enum Signals {
    /// Calls `handler` on SIGINT or SIGTERM (see `OwnThreads.on`: call it before starting threads).
    static func onTermination(_ handler: @escaping @Sendable () -> Void) {
        OwnThreads.on([SIGINT, SIGTERM], handler)
    }
}

/// swift-log's output: standard error (standard output is for results).
enum Logs {
    static func bootstrap(level: Logger.Level, statusLine: LiveStatusLine? = nil) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            guard let statusLine else { return handler }
            return StatusLineLogHandler(inner: handler, line: statusLine)
        }
    }
}

extension WatchCommand {
    /// Draws each status the watcher publishes on `line`.
    static func showing(on line: LiveStatusLine) -> @Sendable (WatchStatus) -> Void {
        { status in line.show(LiveStatusLine.text(status)) }
    }
}

/// One watcher per index: an exclusive `flock` on a file beside it, held until exit.
enum WatchLock {
    /// Takes the lock, waiting for it with `wait`, else failing with a message naming the holder.
    static func acquire(_ index: any IndexStore, wait: Bool) throws {
        let fd = try open(index)
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }  // the descriptor stays open: the lock lasts until exit
        let holder = WatchStatus.read(from: index.watchStatusPath).map { " (pid \($0.pid))" } ?? ""
        guard wait else {
            throw CommandFailure("another `docent watch`\(holder) is keeping \(index.path) current; stop it first, or pass --wait")
        }
        FileHandle.standardError.write(Data("docent: waiting for the watcher\(holder) to exit…\n".utf8))
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CommandFailure("cannot lock \(index.lockPath): \(Errno(rawValue: errno))") }
        }
    }

    /// Takes the lock if no watcher holds it; false if one does.
    static func tryAcquire(_ index: any IndexStore) throws -> Bool {
        let fd = try open(index)
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        close(fd)
        return false
    }

    private static func open(_ index: any IndexStore) throws -> Int32 {
        let fd = Glibc.open(index.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, PrivateStorage.fileMode)
        guard fd >= 0 else { throw CommandFailure("cannot open \(index.lockPath): \(Errno(rawValue: errno))") }
        _ = fchmod(fd, PrivateStorage.fileMode)
        return fd
    }
}

/// How `docent watch` shares the machine.
enum WatchPriority: String, ExpressibleByArgument, CaseIterable {
    case idle, normal
}

/// Background work runs as a guest: lowest CPU priority and the idle I/O class.
enum Priority {
    /// Every thread of this process, and so every thread and helper they start, at nice 19,
    /// SCHED_IDLE and the idle I/O class. Linux keeps all three per thread
    /// (`setpriority(PRIO_PROCESS, 0, …)` and `sched_setscheduler(0, …)` change the calling
    /// thread only): a watcher whose main thread and libdispatch's manager kept normal
    /// priority did its work outside the idle class (seen in `ps -L` under load), so each
    /// thread in /proc/self/task is set. The I/O class is set outright, not left to follow
    /// the nice value: libdispatch sets its workers' nice from their work's QoS, which as
    /// root brings a worker back to nice 0 and would give it best-effort I/O.
    static func becomeBackground() {
        let threads = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { Int32($0) }
        for thread in threads.isEmpty ? [0] : threads {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), 19)
            var parameters = sched_param(sched_priority: 0)
            _ = sched_setscheduler(thread, 5, &parameters)  // SCHED_IDLE (5 in <linux/sched.h>; Glibc hides it without _GNU_SOURCE)
            _ = docent_io_idle(thread)
        }
    }
}
