import ArgumentParser
import DocentCLI
import Engine
import Foundation
import Index
#if canImport(Glibc)
import Glibc
#endif

/// `docent pause [--for DURATION]`: `docent watch` stops all its work until `docent resume`.
struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Stop all of docent watch's work (reading events, indexing) until docent resume, or for a while.",
        discussion: """
            The request stays beside the index, so a watcher started meanwhile starts paused. Changes made \
            meanwhile are caught up on resuming: the kernel keeps inotify's events, and if too many came, \
            the roots are compared with the index.
            """
    )

    @OptionGroup var location: IndexLocation

    @Option(name: .customLong("for"), help: "How long: 90s, 30m, 2h (default: until docent resume).")
    var duration: String?

    func validate() throws {
        if let duration, Self.seconds(duration) == nil { throw ValidationError("--for takes a duration such as 90s, 30m or 2h, not \(duration)") }
    }

    /// Seconds in `text`: a number with s, m, h or d (seconds without a unit).
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text), unit = 1.0
        if let last = text.last, let factor = units[last] {
            number = text.dropLast()
            unit = factor
        }
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return value * unit
    }

    func run() throws {
        let index = try location.open()
        defer { try? index.close() }
        let now = Date().timeIntervalSince1970
        let request = PauseRequest(since: now, until: duration.flatMap(Self.seconds).map { now + $0 })
        do { try request.write(to: index.pausePath) } catch { throw CommandFailure("cannot write \(index.pausePath): \(error)") }
        let until = request.until.map { " until \(PauseRequest.clock($0))" } ?? " until `docent resume`"
        Output.line(WatcherSignal.send(index: index, expecting: .paused)
            .map { "paused\(until): the watcher (pid \($0)) stopped its work" }
            ?? "paused\(until): no docent watch runs now; one started meanwhile starts paused")
    }
}

/// `docent resume`: `docent watch` goes on after `docent pause`.
struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Let docent watch go on after docent pause, catching up with what changed meanwhile.")

    @OptionGroup var location: IndexLocation

    func run() throws {
        let index = try location.open()
        defer { try? index.close() }
        let had = unlink(index.pausePath) == 0
        let pid = WatcherSignal.send(index: index, expecting: nil)
        Output.line(!had ? "docent watch was not paused" : pid.map { "resumed: the watcher (pid \($0)) goes on" } ?? "resumed (no docent watch runs now)")
    }
}

/// Tells the running watcher of an index to read its pause request again.
enum WatcherSignal {
    /// Sends SIGUSR2 to the watcher whose status is published beside `index`, and waits (up
    /// to 5 s) until its state is `expecting` (or, for nil, anything but "paused"). Its pid,
    /// or nil when none runs.
    static func send(index: any IndexStore, expecting: WatchState?) -> Int32? {
        // Only a Docent process holding this index's watch lock is sent anything.
        guard let pid = RunningWatcher.find(index: index.path) else { return nil }
        kill(pid, SIGUSR2)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let state = WatchStatus.read(from: index.watchStatusPath)?.state
            if expecting.map({ state == $0 }) ?? (state != .paused) { break }
            usleep(20_000)
        }
        return pid
    }
}
