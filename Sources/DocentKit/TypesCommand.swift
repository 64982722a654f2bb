import DocentCLI
import ArgumentParser
import ContentTypes

/// `docent types [IDENTIFIER]`: the declared content types.
struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the declared content types, or show one with its tags, supertypes and subtypes.",
        discussion: """
            Types come from three layers, later overriding earlier: Docent's declarations \
            (Config/content-types.yaml), the system's shared-mime-info database, and your own \
            $XDG_CONFIG_HOME/docent/content-types.yaml.
            """
    )

    @Argument(help: "A type identifier (public.image), MIME type (image/png) or filename extension (.png).")
    var type: String?

    @Option(name: .customLong("conforming-to"), help: "List only types that conform to this one.")
    var conformingTo: String?

    @Flag(help: "Print JSON: one object per type per line.")
    var json = false

    mutating func run() throws {
        Output.ignoreSIGPIPE()
        let registry = UTTypeRegistry.shared
        reportDiagnostics(registry)
        if let type {
            guard let found = lookUp(type, in: registry) else {
                throw ValidationError("unknown type '\(type)': give an identifier (public.png), a MIME type (image/png) or an extension (.png); `docent types` lists them")
            }
            show(found, registry: registry)
            return
        }
        var list = registry.allTypes
        if let conformingTo {
            guard let base = lookUp(conformingTo, in: registry) else {
                throw ValidationError("unknown type '\(conformingTo)' for --conforming-to")
            }
            list = list.filter { $0.conforms(to: base) }
        }
        for t in list {
            if json {
                Output.json(summary(t))
            } else {
                Output.line(t.identifier + (t.localizedDescription.map { "\t\($0)" } ?? ""))
            }
        }
    }

    private func lookUp(_ text: String, in registry: UTTypeRegistry) -> UTType? {
        if let t = registry.type(identifier: text) { return t }
        if text.contains("/") { return registry.type(mimeType: text) }
        if text.hasPrefix(".") { return registry.types(filenameExtension: String(text.dropFirst())).first }
        return registry.types(filenameExtension: text).first
    }

    private func summary(_ t: UTType) -> [String: Any] {
        var o: [String: Any] = [
            "identifier": t.identifier,
            "conformsTo": t.orderedSupertypes.map(\.identifier),
            "mimeTypes": t.tags[.mimeType] ?? [],
            "filenameExtensions": t.tags[.filenameExtension] ?? [],
            "origin": t.origin.map { "\($0)" } ?? "dynamic",
        ]
        if let d = t.localizedDescription { o["description"] = d }
        return o
    }

    private func show(_ t: UTType, registry: UTTypeRegistry) {
        let subtypes = registry.subtypes(of: t.identifier).map(\.identifier).sorted()
        if json {
            var o = summary(t)
            o["directSupertypes"] = registry.declaration(for: t.identifier)?.conformsTo ?? []
            o["subtypes"] = subtypes
            if let p = t.preferredMIMEType { o["preferredMIMEType"] = p }
            if let p = t.preferredFilenameExtension { o["preferredFilenameExtension"] = p }
            Output.json(o)
            return
        }
        var lines = [t.identifier + (t.localizedDescription.map { " — \($0)" } ?? "")]
        lines.append("  declared by:   \(t.origin.map { "\($0)" } ?? "nobody (dynamic)")")
        lines.append("  conforms to:   " + (t.orderedSupertypes.map(\.identifier).joined(separator: " → ").nonEmpty ?? "-"))
        lines.append("  MIME types:    " + ((t.tags[.mimeType] ?? []).joined(separator: ", ").nonEmpty ?? "-"))
        lines.append("  extensions:    " + ((t.tags[.filenameExtension] ?? []).map { "." + $0 }.joined(separator: ", ").nonEmpty ?? "-"))
        lines.append("  subtypes:      " + (subtypes.joined(separator: ", ").nonEmpty ?? "-"))
        Output.line(lines.joined(separator: "\n"))
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
