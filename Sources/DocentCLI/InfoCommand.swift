package import ArgumentParser
package import Classifier
package import ContentTypes
import Dispatch
package import DocumentModel
package import FileAccess
import Foundation
import SystemPackage
import Watcher

/// `docent info FILE...`: each file's content type and the evidence behind it.
package struct InfoCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show each file's content type, what it conforms to, and why.",
        discussion: """
            Three witnesses, from one bounded read of the file's first bytes: the name's \
            shared-mime-info globs, shared-mime-info's magic and XML root rules (combined as \
            its specification says, OLE2 compound files by their streams), and libmagic; \
            the answer reconciles them through conformance. Special files (FIFOs, sockets, \
            devices, symbolic links, directories) are typed from lstat and never opened.
            """
    )

    @Argument(help: "Files to examine (directories too, with --recursive).")
    var files: [String]

    @Flag(name: .shortAndLong, help: "Examine every file under each directory (symbolic links are not followed).")
    var recursive = false

    @Flag(help: "Print one JSON object per file per line.")
    var json = false

    @Flag(help: "Print one line per file: path, type, MIME type.")
    var brief = false

    @Flag(help: "Add libmagic's description of each file (a second libmagic pass).")
    var describe = false

    @Option(help: "Files examined at once with --recursive (one libmagic handle each).")
    var workers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))

    /// The readers the program has (name and readable types, in declaration order), for the
    /// `document:` line; set by whoever runs the command (`DocentMain`, or `docent` itself
    /// with the built-in ones).
    package static let readers = Locked<@Sendable () -> [(name: String, readable: [UTType])]>({ [] })

    package mutating func run() throws {
        Output.ignoreSIGPIPE()
        // libmagic's database loads here while the type registry loads on another thread: each
        // takes a few milliseconds of a `docent info` that should take twenty.
        let loading = DispatchGroup()
        DispatchQueue.global().async(group: loading) { _ = UTTypeRegistry.shared }
        var handles: [MagicHandle] = []
        do {
            for _ in 0..<max(1, recursive ? workers : 1) {
                handles.append(try MagicHandle(maxBytes: Classifier.defaultPrefixLimit))
            }
        } catch {
            loading.wait()
            throw ValidationError(error.message)
        }
        loading.wait()
        let registry = UTTypeRegistry.shared
        for diagnostic in registry.diagnostics { Output.warning(diagnostic.description) }
        let format = Format(json: json, brief: brief, describe: describe && !brief)
        let classifiers = handles.map { Classifier(registry: registry, magic: $0) }
        let pool = ClassifierPool(classifiers)
        var failures = 0
        // Paths are classified in batches, a batch across the workers, and printed in walk order.
        var batch: [FilePath] = []
        func flush() {
            for line in pool.run(batch, format: format) {
                switch line {
                case .out(let text): Output.line(text)
                case .failed(let text, let json):
                    failures += 1
                    Output.error(text)
                    if let json { Output.line(json) }
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        for file in files {
            let path = FilePath(file)
            if recursive {
                Crawler().walk(path, visit: { found in
                    batch.append(found)
                    if batch.count >= 512 { flush() }
                }) { failed, error in
                    flush()
                    failures += 1
                    Output.error("\(failed): \(error)")
                    if json { Output.json(["path": failed.string, "error": "\(error)"]) }
                }
                flush()
            } else {
                batch.append(path)
                flush()
            }
        }
        if failures > 0 { throw ExitCode(2) }
    }

    /// The command for a plain command line — `info [-r] [--json|--brief] [--describe]
    /// [--workers N] [--] FILE...` — without ArgumentParser's reflection (a few milliseconds of
    /// every `docent info`); nil for anything else, which goes to ArgumentParser for its
    /// messages and help.
    package static func plain(_ arguments: [String]) -> InfoCommand? {
        guard arguments.first == "info" else { return nil }
        var command = InfoCommand()
        var files: [String] = [], recursive = false, json = false, brief = false, describe = false
        var workers = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        var rest = arguments.dropFirst()
        var onlyFiles = false
        while let argument = rest.first {
            rest = rest.dropFirst()
            if onlyFiles || !argument.hasPrefix("-") || argument == "-" { files.append(argument); continue }
            switch argument {
            case "--": onlyFiles = true
            case "-r", "--recursive": recursive = true
            case "--json": json = true
            case "--brief": brief = true
            case "--describe": describe = true
            case "--workers":
                guard let value = rest.first, let n = Int(value), n > 0 else { return nil }
                workers = n
                rest = rest.dropFirst()
            default: return nil
            }
        }
        guard !files.isEmpty else { return nil }
        command.files = files
        command.recursive = recursive
        command.json = json
        command.brief = brief
        command.describe = describe
        command.workers = workers
        return command
    }

    struct Format: Sendable {
        var json: Bool
        var brief: Bool
        var describe: Bool
    }
}

/// One classifier (libmagic handle) per worker; each batch is split among them.
private final class ClassifierPool: @unchecked Sendable {
    enum Line: Sendable {
        case out(String)
        case failed(String, json: String?)
    }

    private let classifiers: [Classifier]
    init(_ classifiers: [Classifier]) { self.classifiers = classifiers }

    /// The lines for `paths`, in their order. Worker `w` takes paths `w`, `w + n`, `w + 2n`, …,
    /// so each classifier is used by one thread at a time.
    func run(_ paths: [FilePath], format: InfoCommand.Format) -> [Line] {
        var lines = [Line?](repeating: nil, count: paths.count)
        let n = min(classifiers.count, max(paths.count, 1))
        let readers = InfoCommand.readers.withLock { $0 }()
        lines.withUnsafeMutableBufferPointer { slots in
            let out = UncheckedSendable(slots)
            DispatchQueue.concurrentPerform(iterations: n) { w in
                let classifier = classifiers[w]
                var i = w
                while i < paths.count {
                    out.value[i] = Self.line(for: paths[i], classifier: classifier, readers: readers, format: format)
                    i += n
                }
            }
        }
        return lines.compactMap { $0 }
    }

    private static func line(for path: FilePath, classifier: Classifier, readers: [(name: String, readable: [UTType])],
                             format: InfoCommand.Format) -> Line {
        let result = classifier.classify(path, describe: format.describe, consultLibmagic: !format.brief)
        if result.status == nil, let error = result.error {
            return .failed("\(path): \(error)", json: format.json ? Output.jsonLine(["path": path.string, "error": "\(error)"]) : nil)
        }
        let selection = ReaderChoice.best(for: result.contentType, readers: readers)
        if format.json { return .out(Output.jsonLine(InfoFormat.json(result, selection: selection)) ?? "") }
        if format.brief { return .out(InfoFormat.brief(result)) }
        return .out(InfoFormat.text(result, selection: selection))
    }
}

private struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// How `docent info` shows a classification.
package enum InfoFormat {
    static func chain(_ type: UTType) -> [String] { type.orderedSupertypes.map(\.identifier) }

    static func brief(_ r: Classification) -> String {
        "\(r.path): \(r.contentType.identifier) (\(r.mimeType ?? "-"))"
    }

    package static func text(_ r: Classification, selection: ReaderChoice?) -> String {
        var lines = [r.path.string]
        let type = r.contentType
        lines.append("  type:       \(type.identifier)" + (type.localizedDescription.map { " — \($0)" } ?? ""))
        let supers = chain(type)
        if !supers.isEmpty { lines.append("  conforms:   " + supers.joined(separator: " → ")) }
        lines.append("  MIME:       \(r.mimeType ?? "-")" + (type.preferredMIMEType.map { $0 != r.mimeType ? " (preferred: \($0))" : "" } ?? ""))
        if let magic = r.magic {
            var m = "  libmagic:   \(magic.mimeType)"
            if let e = magic.encoding { m += "; charset=\(e)" }
            if let d = magic.description { m += " — \(d)" }
            lines.append(m)
        } else if let status = r.status, status.kind != .regular {
            lines.append("  libmagic:   not consulted (\(status.kind) file)")
        }
        if let shared = r.shared {
            var line = "  shared-mime-info: \(shared.typeName) — \(shared.source)"
            let others = shared.magicHits.prefix(3).map { "\($0.typeName) (\($0.priority))" }
            if !others.isEmpty { line += "; magic matched: " + others.joined(separator: ", ") }
            if let root = shared.xmlRoot { line += "; XML root <\(root.localName)>" + (root.namespace.isEmpty ? "" : " \(root.namespace)") }
            lines.append(line)
        }
        if r.nameCandidates.isEmpty {
            lines.append("  name:       no glob matches")
        } else {
            lines.append("  name:       " + r.nameCandidates.prefix(4).map { c in
                "\(c.pattern) → \(c.mimeType ?? c.type.identifier) (weight \(c.weight))"
            }.joined(separator: "; "))
        }
        lines.append("  reason:     \(r.reason)")
        lines.append("  document:   " + (selection?.description ?? "no document type reads it"))
        if let error = r.error { lines.append("  error:      \(error)") }
        return lines.joined(separator: "\n")
    }

    static func json(_ r: Classification, selection: ReaderChoice?) -> [String: Any] {
        let type = r.contentType
        var o: [String: Any] = [
            "path": r.path.string,
            "contentType": type.identifier,
            "conformsTo": chain(type),
            "reason": r.reason.description,
            "reasonCode": r.reason.code,
            "name": r.nameCandidates.map { c -> [String: Any] in
                var n: [String: Any] = ["pattern": c.pattern, "contentType": c.type.identifier, "weight": c.weight]
                if let m = c.mimeType { n["mimeType"] = m }
                return n
            },
        ]
        o["mimeType"] = r.mimeType ?? NSNull()
        if let p = type.preferredMIMEType { o["preferredMIMEType"] = p }
        if let d = type.localizedDescription { o["description"] = d }
        if let magic = r.magic {
            var m: [String: Any] = ["mimeType": magic.mimeType]
            if let e = magic.encoding { m["encoding"] = e }
            if let d = magic.description { m["description"] = d }
            o["magic"] = m
        } else {
            o["magic"] = NSNull()
        }
        if let shared = r.shared {
            var m: [String: Any] = [
                "type": shared.typeName, "source": shared.source.description,
                "magicMatches": shared.magicHits.map { ["type": $0.typeName, "priority": $0.priority] as [String: Any] },
            ]
            if let root = shared.xmlRoot { m["xmlRoot"] = ["namespace": root.namespace, "localName": root.localName] }
            o["sharedMIMEInfo"] = m
        } else {
            o["sharedMIMEInfo"] = NSNull()
        }
        if let s = r.status {
            o["kind"] = s.kind.rawValue
            o["size"] = s.size
        }
        if let t = r.symlinkTarget { o["symlinkTarget"] = t }
        if let selection {
            o["documentType"] = selection.documentTypeName
            o["documentReads"] = selection.readableType.identifier
        }
        if let e = r.error { o["error"] = "\(e)" }
        return o
    }
}
