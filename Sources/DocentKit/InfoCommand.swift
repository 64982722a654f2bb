import DocentCLI
import Foundation
import ArgumentParser
import Classifier
import ContentTypes
import DocumentModel
import Documents
import Engine
import SystemPackage
import Watcher

/// `docent info FILE...`: each file's content type and the evidence behind it.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show each file's content type, what it conforms to, and why.",
        discussion: """
            Content evidence comes from libmagic (one bounded read of the file's first bytes);
            name evidence from the shared-mime-info globs. Special files (FIFOs, sockets,
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

    mutating func run() throws {
        Output.ignoreSIGPIPE()
        let registry = UTTypeRegistry.shared
        reportDiagnostics(registry)
        let classifier: Classifier
        do {
            classifier = try Classifier(registry: registry)
        } catch {
            throw ValidationError(error.message)
        }
        var failures = 0
        let describe = !brief
        let documents = AppDocuments.registry
        func show(_ path: FilePath) {
            let result = classifier.classify(path, describe: describe)
            if result.status == nil, let error = result.error {
                failures += 1
                Output.error("\(path): \(error)")
                if json { Output.json(["path": path.string, "error": "\(error)"]) }
                return
            }
            let selection = documents.selection(for: result.contentType)
            if json { Output.json(InfoFormat.json(result, selection: selection)) }
            else if brief { Output.line(InfoFormat.brief(result)) }
            else { Output.line(InfoFormat.text(result, selection: selection)) }
        }
        for file in files {
            let path = FilePath(file)
            if recursive {
                Crawler().walk(path, visit: show) { failed, error in
                    failures += 1
                    Output.error("\(failed): \(error)")
                    if json { Output.json(["path": failed.string, "error": "\(error)"]) }
                }
            } else {
                show(path)
            }
        }
        if failures > 0 { throw ExitCode(2) }
    }
}

/// How `docent info` shows a classification.
package enum InfoFormat {
    static func chain(_ type: UTType) -> [String] { type.orderedSupertypes.map(\.identifier) }

    static func brief(_ r: Classification) -> String {
        "\(r.path): \(r.contentType.identifier) (\(r.mimeType ?? "-"))"
    }

    package static func text(_ r: Classification, selection: DocumentSelection?) -> String {
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

    static func json(_ r: Classification, selection: DocumentSelection?) -> [String: Any] {
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
        if let s = r.status {
            o["kind"] = s.kind.rawValue
            o["size"] = s.size
        }
        if let t = r.symlinkTarget { o["symlinkTarget"] = t }
        if let selection {
            o["documentType"] = selection.group.documentTypeName
            o["documentReads"] = selection.readableType.identifier
        }
        if let e = r.error { o["error"] = "\(e)" }
        return o
    }
}
