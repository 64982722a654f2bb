import DocentCLI
import Dispatch
import Engine
import Foundation
import Index
import Logging
import Rendering
import SystemPackage
import Watcher

extension SearchCommand {
    /// `docent search QUERY --follow`: the results, then a line for each file that starts or
    /// stops matching, each time the index commits — a live query.
    ///
    /// The index is followed through its database and write-ahead log, so any writer counts:
    /// a running `docent watch`, a `docent index`, or, when no watcher runs, one started here
    /// for the remembered roots (stopped with the search).
    func follow(_ request: SearchRequest, in index: FileIndex) throws {
        // Followed before the first query, so no commit falls between the two.
        let follower: FileFollower
        do {
            follower = try FileFollower(files: [FilePath(index.path), FilePath(index.path + "-wal")], settle: .milliseconds(10))
        } catch {
            throw CommandFailure("cannot follow \(index.path): \(error)")
        }
        let here = try watchHere(index)
        let sources = Signals.onTermination { follower.stop() }
        defer {
            here?.stop()
            withExtendedLifetime(sources) {}
        }

        var everything = request
        everything.limit = Int.max
        everything.snippets = false
        everything.ranked = false  // the set is compared, not its order
        let first: [SearchHit], all: [SearchHit]
        do {
            first = try index.search(request)
            all = try index.search(everything)
        } catch {
            throw IndexLocation.failure(error, path: index.path)
        }
        for hit in first { show(hit, event: "match") }
        var matching = Set(all.map(\.path))
        while follower.wait() {
            let now: [SearchHit]
            do { now = try index.search(everything) } catch {
                Output.warning("\(error)")
                continue
            }
            let nowPaths = Set(now.map(\.path))
            let added = now.filter { !matching.contains($0.path) }.map(\.path)
            let removed = matching.subtracting(nowPaths).sorted { $0.lexicographicallyPrecedes($1) }
            matching = nowPaths
            report(added: added, removed: removed, request: request, index: index)
        }
    }

    /// Prints `+ path` and `- path` lines, or JSON objects: an added hit in full (with its
    /// snippet), a removed one by path.
    private func report(added: [[UInt8]], removed: [[UInt8]], request: SearchRequest, index: FileIndex) {
        if json {
            if !added.isEmpty {
                var withSnippets = request
                withSnippets.paths = added
                withSnippets.limit = added.count
                for hit in (try? index.search(withSnippets)) ?? [] { show(hit, event: "added") }
            }
            for path in removed { Output.line(JSONRenderer.encode(RemovedHitJSON(path: String(decoding: path, as: UTF8.self)))) }
            return
        }
        let colour = Output.isTerminal && !Terminal.noColor
        for (sign, paths) in [("+", added), ("-", removed)] {
            for path in paths {
                if colour {
                    Output.line((sign == "+" ? "\u{1B}[32m+" : "\u{1B}[31m-") + "\u{1B}[0m " + String(decoding: path, as: UTF8.self).terminalSafe)
                } else {
                    Output.write(Data(Array("\(sign) ".utf8) + path + (print0 ? [0] : [0x0A])))
                }
            }
        }
    }

    private func watchHere(_ index: FileIndex) throws -> BackgroundWatch? {
        try BackgroundWatch.unlessWatched(index, while: "this search follows")
    }
}

extension BackgroundWatch {
    /// When no `docent watch` keeps the index current, one runs in this process for the
    /// remembered roots; nil when a watcher already runs (or there are no roots).
    package static func unlessWatched(_ index: FileIndex, while what: String) throws -> BackgroundWatch? {
        let settings = try Settings.loadForCommand()
        let roots = try Roots.remembered(in: index, settings: settings, keepMissing: true)
        guard !roots.isEmpty, try WatchLock.tryAcquire(index) else { return nil }
        Logs.bootstrap(level: .warning)
        let service: WatchService
        do {
            service = try WatchService(index: index, roots: roots, settings: settings, logger: Logger(label: "docent.search"))
        } catch {
            throw CommandFailure("\(error)")
        }
        if isatty(STDERR_FILENO) == 1 {
            Output.note("no `docent watch` is running: watching \(roots.map(\.string).joined(separator: ", ")) while \(what)")
        }
        return BackgroundWatch(service)
    }
}

/// A `WatchService` running on a thread of its own.
package final class BackgroundWatch: Sendable {
    let service: WatchService
    private let done = DispatchSemaphore(value: 0)

    init(_ service: WatchService) {
        self.service = service
        let done = self.done
        let thread = Thread {
            do { try service.run() } catch { Output.error("watching stopped: \(error)") }
            done.signal()
        }
        thread.name = "docent-watch"
        thread.start()
    }

    /// Stops the service once its batch in hand is applied.
    package func stop() {
        service.stop()
        done.wait()
    }
}

/// A hit that stopped matching, as `--json --follow` prints it.
struct RemovedHitJSON: Encodable {
    let path: String
    var event = "removed"
}
