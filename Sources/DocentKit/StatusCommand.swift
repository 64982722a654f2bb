import DocentCLI
import ArgumentParser
import ContentTypes
import Foundation
import Engine
import Index
#if canImport(Glibc)
import Glibc
#endif

/// `docent status`: what the index holds, how fresh it is, and what went wrong.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the roots, file counts by type, index size, when each root was last indexed, and errors.",
        discussion: """
            Types are counted under the first of these they conform to: \(TypeCategories.order.map(\.name).joined(separator: ", ")), \
            else other. --errors lists every file whose row carries an error, with why.
            """
    )

    @OptionGroup var location: IndexLocation

    @Flag(help: "List the files with errors and why.")
    var errors = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        Output.ignoreSIGPIPE()
        let index = try location.open()
        let statistics: IndexStatistics
        let failed: [IndexedFile]
        do {
            statistics = try index.statistics()
            failed = errors ? try index.filesWithErrors() : []
        } catch {
            throw IndexLocation.failure(error, path: index.path)
        }
        let categories = TypeCategories.count(statistics.contentTypes, in: .shared)
        // A watcher's published status counts only while its process lives (one killed
        // with SIGKILL leaves its last status behind).
        let watch = WatchStatus.running(at: index.watchStatusPath)
        let ocr = (try? Settings.current.get())?.ocr
        let ocrTotals = OCRTotals.cached()
        if json {
            printJSON(statistics, categories: categories, failed: failed, path: index.displayName, watch: watch, ocr: (ocr, ocrTotals))
        } else if errors {
            for file in failed {
                Output.line("\(file.displayPath.terminalSafe): \(file.errorKind ?? "error"): \((file.errorMessage ?? "").terminalSafe)")
            }
        } else {
            printText(statistics, categories: categories, path: index.displayName, watch: watch)
            if ocr != nil || ocrTotals.files > 0 {
                let state = ocr.map { "on (\($0.languages.joined(separator: "+")))" } ?? "off"
                Output.line("")
                Output.line("ocr      \(state): \(ocrTotals.files.formatted()) files read, \(ocrTotals.pages.formatted()) pages, "
                            + String(format: "%.1f s", ocrTotals.seconds) + " spent (results kept in the cache, never read twice)")
            }
        }
    }

    private func printText(_ statistics: IndexStatistics, categories: [(String, Int)], path: String, watch: WatchStatus?) {
        Output.line("index    \(path.terminalSafe) (\(Figures.bytes(statistics.bytesOnDisk)))")
        let errorTotal = statistics.errorKinds.values.reduce(0, +)
        Output.line("files    \(statistics.files.formatted())" + (errorTotal > 0 ? ", \(errorTotal.formatted()) with errors" : ""))
        if !statistics.hosts.isEmpty {
            Output.line("hosts    " + statistics.hosts.sorted { $0.key < $1.key }.map { "\($0.key.terminalSafe) \($0.value.formatted())" }
                .joined(separator: ", ") + " (this one: \(IndexLocation.hostName.terminalSafe))")
        }
        if let watch {
            Output.line("watcher  \(watch.state.rawValue) (pid \(watch.pid)): \(watch.watchedDirectories.formatted()) directories watched, "
                        + "\(watch.pending.formatted()) changes pending, \(watch.overflows) overflows")
            if watch.unwatched > 0 {
                Output.line("         \(watch.unwatched.formatted()) directories not watched (inotify watch limit), rescanned every minute:")
                for directory in watch.unwatchedDirectories.prefix(20) { Output.line("           \(directory.terminalSafe)") }
            }
            for root in watch.missingRoots { Output.line("         root missing, watched for its return: \(root.terminalSafe)") }
            if let paused = watch.paused { Output.line("         \(paused.terminalSafe)") }
            if let deferred = watch.deferred { Output.line("         deferred: \(deferred.terminalSafe)") }
            let polled = watch.polled ?? []
            if !polled.isEmpty {
                let every = watch.pollInterval.map { " every \(Int($0)) s" } ?? ""
                Output.line("         \(polled.count) director\(polled.count == 1 ? "y" : "ies") compared with the index\(every) (inotify cannot see their changes):")
                for directory in polled { Output.line("           \(directory.path.string.terminalSafe): \(directory.reason.terminalSafe)") }
            }
            if let problem = watch.problem { Output.line("         waiting: \(problem.terminalSafe)") }
        } else {
            Output.line("watcher  not running (`docent watch` keeps the index current)")
        }
        Output.line("")
        Output.line("roots")
        if statistics.roots.isEmpty { Output.line("  none yet: `docent index DIRECTORY` adds one") }
        let now = Date()
        for root in statistics.roots {
            let when = root.lastIndexed.map { "indexed \(Figures.age(of: $0, now: now))" } ?? "never indexed"
            Output.line("  \(String(decoding: root.path, as: UTF8.self).terminalSafe)  \(root.files.formatted()) files, "
                        + "\(root.errors.formatted()) errors, \(when)")
        }
        if !categories.isEmpty {
            Output.line("")
            Output.line("types")
            let width = categories.map(\.0.count).max() ?? 0
            for (name, count) in categories { Output.line("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count.formatted())") }
        }
        if !statistics.errorKinds.isEmpty {
            Output.line("")
            Output.line("errors (docent status --errors lists them)")
            let kinds = statistics.errorKinds.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            let width = kinds.map(\.key.count).max() ?? 0
            for (kind, count) in kinds { Output.line("  " + kind.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count.formatted())") }
        }
    }

    private func printJSON(_ statistics: IndexStatistics, categories: [(String, Int)], failed: [IndexedFile], path: String,
                           watch: WatchStatus?, ocr: (settings: OCRSettings?, totals: OCRTotals)) {
        let iso = ISO8601DateFormatter()
        var object: [String: Any] = [
            "index": path,
            "indexBytes": statistics.bytesOnDisk,
            "files": statistics.files,
            "hosts": statistics.hosts,
            "roots": statistics.roots.map { root -> [String: Any] in
                var entry: [String: Any] = ["path": String(decoding: root.path, as: UTF8.self), "files": root.files, "errors": root.errors]
                entry["lastIndexed"] = root.lastIndexed.map(iso.string(from:)) ?? NSNull()
                return entry
            },
            "types": Dictionary(uniqueKeysWithValues: categories),
            "contentTypes": statistics.contentTypes,
            "errors": statistics.errorKinds,
            "state": (watch?.state ?? .stopped).rawValue,
            "pending": watch?.pending ?? 0,
            "watchedDirectories": watch?.watchedDirectories ?? 0,
            "unwatchedDirectories": watch?.unwatchedDirectories ?? [],
            "unwatchedCount": watch?.unwatched ?? 0,
            "overflows": watch?.overflows ?? 0,
            "missingRoots": watch?.missingRoots ?? [],
            "ocr": ["enabled": ocr.settings != nil, "languages": ocr.settings?.languages ?? [], "files": ocr.totals.files,
                    "pages": ocr.totals.pages, "seconds": ocr.totals.seconds] as [String: Any],
        ]
        if let watch { object["watcherPid"] = watch.pid }
        if let problem = watch?.problem { object["problem"] = problem }
        if let paused = watch?.paused { object["paused"] = paused }
        if let deferred = watch?.deferred { object["deferred"] = deferred }
        object["polled"] = (watch?.polled ?? []).map { ["path": $0.path.string, "reason": $0.reason, "mounted": $0.mounted] as [String: Any] }
        if let interval = watch?.pollInterval { object["pollInterval"] = interval }
        if errors {
            object["filesWithErrors"] = failed.map {
                ["path": $0.displayPath, "contentType": $0.contentType, "kind": $0.errorKind ?? "", "message": $0.errorMessage ?? ""]
            }
        }
        Output.json(object)
    }
}

/// How `docent status` and the viewer show sizes and ages.
package enum Figures {
    package static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }

    /// "just now", "5 min ago", "3 h ago", "2 days ago".
    package static func age(of date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<10: return "just now"
        case ..<60: return "\(seconds) s ago"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86400: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86400) days ago"
        }
    }
}

/// The top-level groups `docent status` counts files in.
package enum TypeCategories {
    /// Checked in order: the first a content type conforms to is its group.
    package static let order: [(name: String, identifier: String)] = [
        ("source", "public.source-code"), ("pdf", "com.adobe.pdf"), ("document", "public.composite-content"),
        ("text", "public.text"), ("image", "public.image"), ("audio", "public.audio"), ("video", "public.movie"),
        ("archive", "public.archive"), ("executable", "public.executable"), ("font", "public.font"),
    ]

    /// `counts` (per content type) folded into groups, largest first.
    package static func count(_ counts: [String: Int], in registry: UTTypeRegistry) -> [(String, Int)] {
        let groups = order.compactMap { entry in registry.type(identifier: entry.identifier).map { (entry.name, $0) } }
        var totals: [String: Int] = [:]
        for (identifier, count) in counts {
            let type = registry.type(identifier: identifier)
            let name = type.flatMap { type in groups.first { type.conforms(to: $0.1) }?.0 } ?? "other"
            totals[name, default: 0] += count
        }
        return totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
    }
}
