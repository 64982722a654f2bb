import Dispatch
import FileAccess
import Foundation
import Hummingbird
import Index
import DocentKit
import ServiceLifecycle
import SystemPackage
import Watcher

/// Tells subscribers each time one of `files` changes (the database and its write-ahead log:
/// each commit; with the watcher's status file: its status too). They are followed with
/// inotify on a thread of their own, so nothing runs while nothing changes.
final class IndexChanges: Sendable {
    private let sources: [any IndexCommits]
    private let subscribers = Locked<[UInt64: AsyncStream<Void>.Continuation]>([:])
    private let next = Locked<UInt64>(0)

    convenience init(_ files: [String]) throws {
        try self.init([FileFollower(files: files.map { FilePath($0) }, settle: .milliseconds(10))])
    }

    /// Changes from each of `sources` (for an index on PostgreSQL: its commits, heard from
    /// the server, and the watcher's status file), each waited for on a thread of its own.
    init(_ sources: [any IndexCommits]) {
        self.sources = sources
        for source in sources {
            OwnThreads.start("docent-serve-follow") { [subscribers] in
                while source.wait() {
                    for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield() }
                }
            }
        }
    }

    /// One element per change from now on (changes close together may come as one).
    func subscribe() -> AsyncStream<Void> {
        let id = next.withLock { value in
            value += 1
            return value
        }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { [subscribers] _ in _ = subscribers.withLock { $0.removeValue(forKey: id) } }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func stop() { for source in sources { source.stop() } }
}

/// One Server-Sent Event.
struct ServerSentEvent: Sendable {
    var name: String?
    var data: String

    /// The event's wire form: `event:` and one `data:` line per line of `data`.
    var encoded: String {
        var out = name.map { "event: \($0)\n" } ?? ""
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { out += "data: \(line)\n" }
        return out + "\n"
    }
}

extension Response {
    /// A Server-Sent Events stream of `events` in answer to `request`. It ends, and with it
    /// the work behind it (a live search, a followed file), as soon as the browser closes the
    /// connection: a page that moves to another query closes its old stream, and a search
    /// left subscribed would run again after every commit. A comment every 30 s finds
    /// connections that vanished without a close; Ctrl-C ends every stream at once.
    static func eventStream(_ events: AsyncStream<ServerSentEvent>, for request: Request) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        let (beats, beat) = AsyncStream<String>.makeStream()
                        group.addTask {
                            for await event in events { beat.yield(event.encoded) }
                            beat.finish()
                        }
                        group.addTask {
                            while !Task.isCancelled {
                                try await Task.sleep(for: .seconds(30))
                                beat.yield(": still here\n\n")
                            }
                        }
                        // "retry" tells the browser to come back quickly after a restart.
                        try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                        for try await chunk in beats.cancelOnGracefulShutdown() { try await writer.write(ByteBuffer(string: chunk)) }
                        group.cancelAll()
                    }
                }
            } catch is CancellationError {
                return  // the browser went away: nobody to finish for
            }
            try await writer.finish(nil)
        })
    }
}

/// Runs blocking work (SQLite, the helper, inotify) off Swift's cooperative threads.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
