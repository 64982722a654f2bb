import FileAccess
import DocentCLI
import Engine
import Foundation
import Logging

/// The bottom line of the terminal while `docent watch` runs: what it is doing now, redrawn
/// as that changes; log lines scroll above it.
final class LiveStatusLine: Sendable {
    private let line = Locked("")

    /// Replaces the line.
    func show(_ text: String) {
        line.withLock { line in
            line = text
            Terminal.status(text)
        }
    }

    /// Runs `body` (which writes whole lines to standard error) with the line out of the way,
    /// then draws it again.
    func around(_ body: () -> Void) {
        line.withLock { line in
            if !line.isEmpty { Terminal.status("") }
            body()
            if !line.isEmpty { Terminal.status(line) }
        }
    }

    /// Clears the line for good.
    func clear() { show("") }

    /// The line for a watcher's status: "watching · 33,445 files · 3,394 directories · last change 14:02:11".
    static func text(_ status: WatchStatus) -> String {
        var parts: [String]
        switch status.state {
        case .starting: parts = ["reconciling the index with the disk…"]
        case .indexing: parts = ["indexing \(status.pending.formatted()) changes"]
        case .paused: parts = [status.paused ?? "paused"]
        case .deferred: parts = [status.deferred ?? "deferred"]
        case .watching, .waiting, .stopped: parts = [status.state.rawValue]
        }
        parts.append("\(status.files.formatted()) files")
        parts.append("\(status.watchedDirectories.formatted()) directories")
        if status.unwatched > 0 { parts.append("\(status.unwatched.formatted()) unwatched (watch limit)") }
        if status.overflows > 0 { parts.append("\(status.overflows.formatted()) overflows") }
        if !status.missingRoots.isEmpty { parts.append("\(status.missingRoots.count) roots missing") }
        if let polled = status.polled, !polled.isEmpty { parts.append("\(polled.count) polled") }
        if let last = status.lastApplied {
            parts.append("last change " + Date(timeIntervalSince1970: last).formatted(date: .omitted, time: .standard))
        }
        return parts.joined(separator: " · ")
    }
}

/// swift-log's standard-error handler, stepping around the live status line.
struct StatusLineLogHandler: LogHandler {
    var inner: StreamLogHandler
    let line: LiveStatusLine

    func log(event: LogEvent) {
        line.around { inner.log(event: event) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }
}
