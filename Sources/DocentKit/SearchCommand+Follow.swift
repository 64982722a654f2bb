import DocentCLI
import Dispatch
import Engine
import FileAccess
import Foundation
package import Index
import Logging
import PostgresIndex
import Rendering
import SystemPackage
import Watcher

/// What a live query waits on: the SQLite file and its log (`FileFollower`), or PostgreSQL's
/// notifications of every host's commits (`ChangeListener`).
package protocol IndexCommits: Sendable {
    func wait() -> Bool
    func stop()
}

extension FileFollower: IndexCommits {}
extension ChangeListener: IndexCommits {}

extension SearchCommand {
    /// `docent search QUERY --follow`: the results, then a line for each file that starts or
    /// stops matching, each time the index commits — a live query.
    ///
    /// A SQLite index is followed through its database and write-ahead log, so any writer
    /// counts: a running `docent watch`, a `docent index`, or, when no watcher runs, one
    /// started here for the remembered roots (stopped with the search). An index on
    /// PostgreSQL is followed through the server's notifications, whichever host wrote: the
    /// hosts' own `docent watch` keep it current, and another host's file is named host:path.
    func follow(_ request: SearchRequest, in index: any IndexStore) throws {
        // Followed before the first query, so no commit falls between the two.
        let commits: any IndexCommits
        var here: BackgroundWatch?
        if let file = index as? FileIndex {
            do {
                commits = try FileFollower(files: [FilePath(file.path), FilePath(file.path + "-wal")], settle: .milliseconds(10))
            } catch {
                throw CommandFailure("cannot follow \(file.path): \(error)")
            }
            here = try watchHere(file)
        } else if let shared = index as? PostgresIndex {
            do { commits = try shared.changes() } catch { throw IndexLocation.failure(error, path: shared.displayName) }
        } else {
            throw CommandFailure("--follow cannot follow \(index.displayName)")
        }
        Signals.onTermination { commits.stop() }
        defer { here?.stop() }

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
        // Each matching file by host and path: the same path on two hosts is two files.
        func key(_ hit: SearchHit) -> [UInt8] { (hit.host.map { Array($0.utf8) + [0] } ?? []) + hit.path }
        var matching = Dictionary(all.map { (key($0), $0) }) { first, _ in first }
        while commits.wait() {
            let now: [SearchHit]
            do {
                // Once more on a failure: after the server restarted, the first statement meets
                // the connection it closed, and the store connects again for the next.
                now = try (try? index.search(everything)) ?? index.search(everything)
            } catch {
                Output.warning("\(error)")
                continue
            }
            let current = Dictionary(now.map { (key($0), $0) }) { first, _ in first }
            let added = now.filter { matching[key($0)] == nil }
            let removed = matching.filter { current[$0.key] == nil }.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
            matching = current
            report(added: added, removed: removed, request: request, index: index)
        }
    }

    /// Prints `+ path` and `- path` lines (another host's file as host:path), or JSON objects:
    /// an added hit in full (with its snippet), a removed one by path (and host).
    private func report(added: [SearchHit], removed: [SearchHit], request: SearchRequest, index: any IndexStore) {
        if json {
            // This host's added files again with their snippets (a search by path); another
            // host's as the comparison found them.
            let own = added.filter { $0.host == nil }.map(\.path)
            var withSnippets = request
            withSnippets.paths = own
            withSnippets.limit = own.count
            let snippets = own.isEmpty ? [] : (try? index.search(withSnippets)) ?? []
            let full = Dictionary(snippets.map { ($0.path, $0) }) { first, _ in first }
            for hit in added { show(hit.host == nil ? full[hit.path] ?? hit : hit, event: "added") }
            for hit in removed {
                Output.line(JSONRenderer.encode(RemovedHitJSON(path: String(decoding: hit.path, as: UTF8.self), host: hit.host)))
            }
            return
        }
        let colour = Output.isTerminal && !Terminal.noColor
        for (sign, hits) in [("+", added), ("-", removed)] {
            for hit in hits {
                if colour {
                    Output.line((sign == "+" ? "\u{1B}[32m+" : "\u{1B}[31m-") + "\u{1B}[0m " + hit.displayPlace.terminalSafe)
                } else {
                    Output.write(Data(Array("\(sign) ".utf8) + hit.place + (print0 ? [0] : [0x0A])))
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
        OwnThreads.start("docent-watch") {
            do { try service.run() } catch { Output.error("watching stopped: \(error)") }
            done.signal()
        }
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
    /// Another host's, in an index on PostgreSQL; left out for this host's.
    var host: String?
    var event = "removed"
}
