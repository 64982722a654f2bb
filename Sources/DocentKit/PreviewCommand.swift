import DocentCLI
import ArgumentParser
import ContentTypes
import DocumentModel
import Documents
package import Engine
import Foundation
package import Index
import Rendering
import FileAccess
import Watcher
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `docent preview FILE`: the file opened read-only by its document type, rendered.
struct PreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show a file's preview, as its document type sees it.",
        discussion: """
            The file is classified, opened read-only by the most specific document type that reads \
            its content type, and previewed. Formats: text (the default on a pipe), ansi (the default \
            on a terminal; colour unless NO_COLOR is set), html (one standalone page), json.
            """
    )

    @Argument(help: "The file to preview.")
    var file: String

    @Option(help: "Output format: text, ansi, html or json.")
    var format: PreviewFormat?

    @Option(name: .customLong("max-bytes"), help: "Read at most this many bytes of the file (default 16 MiB).")
    var maxBytes: Int = FileWrapper.defaultReadLimit

    @Option(help: "Wrap text to this many columns (default: the terminal's width; no wrapping on a pipe).")
    var width: Int?

    @Flag(help: "Print the preview again each time the file changes (like tail -f), until interrupted.")
    var follow = false

    @Flag(name: .customLong("no-cache"), help: "Neither use nor keep a cached preview ($XDG_CACHE_HOME/docent/previews).")
    var noCache = false

    @Option(help: ArgumentHelp("Show the lines of the whole document that match this query (as docent search matches it: stems, prefixes, phrases), marked.",
                               valueName: "query"))
    var query: String?

    @OptionGroup var location: IndexLocation

    func validate() throws {
        if maxBytes < 1 { throw ValidationError("--max-bytes must be at least 1.") }
        if let width, width < 20 { throw ValidationError("--width must be at least 20.") }
        if query != nil, follow { throw ValidationError("--query and --follow cannot be used together.") }
    }

    func run() async throws {
        Output.ignoreSIGPIPE()
        if let (host, remotePath) = remoteFile {
            guard !follow else { throw CommandFailure("--follow needs the file on this machine; \(file) is on \(host)") }
            return Output.write(try remotePreview(host: host, path: remotePath))
        }
        if let query { return try await passages(query) }
        let path = Paths.absolute(file)
        let cache = noCache ? nil : PreviewCache()
        guard follow else { return Output.write(render(try await preview(path, cache: cache), event: nil)) }
        // Followed before the first preview is made, so no change falls between the two.
        let follower: FileFollower
        do { follower = try FileFollower(files: [path]) } catch { throw CommandFailure("cannot follow \(file): \(error)") }
        var shown = render(try await preview(path, cache: cache), event: "preview")
        Output.write(shown)
        while follower.wait() {
            let output: String
            do {
                output = render(try await preview(path, cache: cache), event: "preview")
            } catch {
                output = removal()
            }
            guard output != shown else { continue }  // touched, or changed where the preview does not show
            shown = output
            Output.write(heading() + output)
        }
    }

    /// The file's preview: from the cache while the file's signature matches the entry's,
    /// else made by opening the file (and kept for next time).
    private func preview(_ path: FilePath, cache: PreviewCache?) async throws -> Extraction {
        if let cache, let status = try? FileStatus.lstat(path), status.kind == .regular,
           let cached = cache.lookup(path, status: status, readLimit: maxBytes) {
            return cached
        }
        let opened = try await Opening.open(file, readLimit: maxBytes, preview: true, text: false)
        let preview: Extraction
        switch opened.opened {
        case .document(let document): preview = try Extraction(document, preview: true, text: false, textBytes: 0)
        case .extraction(let extraction): preview = extraction  // asked for with its preview
        }
        if let cache, let status = opened.prepared.classification.status, status.kind == .regular {
            cache.store(preview, for: path, status: status, readLimit: maxBytes)
        }
        return preview
    }

    var resolvedFormat: PreviewFormat { format ?? (Output.isTerminal ? .ansi : .text) }

    /// `HOST:/path`, as `docent search` names another host's file in a shared index: the host
    /// and the path, when no such file is here and the host is not this one.
    private var remoteFile: (host: String, path: String)? {
        guard location.isServer, let colon = file.firstIndex(of: ":"), colon > file.startIndex else { return nil }
        let host = String(file[..<colon]), path = String(file[file.index(after: colon)...])
        guard path.hasPrefix("/"), !host.contains("/"), host != IndexLocation.hostName, access(file, F_OK) != 0 else { return nil }
        return (host, path)
    }

    /// Another host's file, from what its host stored in the index: its title, metadata and
    /// text, marked as remote (the file itself is not on this machine; nothing is opened).
    private func remotePreview(host: String, path: String) throws -> String {
        let index = try location.open()
        let stored: (file: IndexedFile, text: String)?
        do { stored = try index.storedFile(host: host, path: Array(path.utf8), textLimit: maxBytes) } catch { throw CommandFailure("\(error)") }
        guard let (row, text) = stored else { throw CommandFailure("\(file): no such file of host \(host) in the index at \(index.displayName)") }
        let (preview, fields) = RemoteFile.preview(of: row, host: host, text: text)
        switch resolvedFormat {
        case .json:
            var output = PreviewOutput(path: path, contentType: row.contentType, documentType: row.documentType ?? "",
                                       selection: "stored in the index by \(host)", title: row.title, metadata: fields, problems: [],
                                       preview: PreviewJSON(preview), event: nil)
            output.host = host
            return JSONRenderer.encode(output) + "\n"
        case let format:
            let renderer = format.renderer(width: width ?? (Output.isTerminal ? Terminal.columns : nil),
                                           colour: Output.isTerminal && !Terminal.noColor)
            return renderer.render(preview)
        }
    }

    private func render(_ preview: Extraction, event: String?) -> String {
        switch resolvedFormat {
        case .json:
            return JSONRenderer.encode(PreviewOutput(path: file, cached: preview, event: event)) + "\n"
        case let format:
            let renderer = format.renderer(width: width ?? (Output.isTerminal ? Terminal.columns : nil),
                                           colour: Output.isTerminal && !Terminal.noColor)
            return renderer.render(preview.preview ?? Preview(elements: []))
        }
    }

    /// What --follow prints while the file is gone.
    private func removal() -> String {
        resolvedFormat == .json ? JSONRenderer.encode(RemovedOutput(path: file)) + "\n" : "(\(file.terminalSafe) is gone; waiting for it to come back)\n"
    }

    /// What comes before each new version under --follow: a clean screen on a terminal,
    /// a `tail`-style header line on a pipe (nothing between JSON lines).
    private func heading() -> String {
        if resolvedFormat == .json { return "" }
        let time = Date().formatted(date: .omitted, time: .standard)
        if Output.isTerminal { return "\u{1B}[H\u{1B}[2J\u{1B}[2m\(file.terminalSafe) · \(time)\u{1B}[0m\n" }
        return "\n==> \(file) <==\n"
    }
}

/// What `docent preview --format json` prints.
struct PreviewOutput: Encodable {
    let path: String
    let contentType: String
    let documentType: String
    let selection: String
    let title: String?
    let metadata: [MetadataField]
    let problems: [DocumentProblem]
    let preview: PreviewJSON
    /// Under --follow: "preview".
    let event: String?
    /// The host the file is on, when not this one: the preview is what that host stored.
    var host: String?

    init(path: String, contentType: String, documentType: String, selection: String, title: String?, metadata: [MetadataField],
         problems: [DocumentProblem], preview: PreviewJSON, event: String?) {
        (self.path, self.contentType, self.documentType, self.selection, self.title) = (path, contentType, documentType, selection, title)
        (self.metadata, self.problems, self.preview, self.event) = (metadata, problems, preview, event)
    }

    init(path: String, cached: Extraction, event: String?) {
        self.path = path
        contentType = cached.contentType
        documentType = cached.documentType
        selection = cached.selection
        title = cached.title
        metadata = cached.metadata
        problems = cached.problems
        preview = PreviewJSON(cached.preview ?? Preview(elements: []))
        self.event = event
    }
}

/// What `docent preview --follow --format json` prints while the file is gone.
struct RemovedOutput: Encodable {
    let path: String
    var event = "removed"
}

/// Opening one file for the preview and export commands.
package enum Opening {
    /// A file opened for the preview and export commands: in this process, or — for document
    /// types that run isolated — by the helper process, which hands back an extraction.
    package enum Opened {
        case document(OpenedDocument)
        case extraction(Extraction)
    }

    package struct Result {
        package let prepared: PreparedFile
        package let opened: Opened
    }

    /// Classifies and opens `file` (asking an isolated reader for its preview and/or text);
    /// a path that cannot be examined is a usage error (exit 2).
    package static func open(_ file: String, readLimit: Int, preview: Bool, text: Bool) async throws -> Result {
        let registry = UTTypeRegistry.shared
        reportDiagnostics(registry)
        var budget = try Settings.loadForCommand().budget
        if readLimit != FileWrapper.defaultReadLimit { budget.readBytes = readLimit }  // --max-bytes given
        let opener = DocumentOpener(types: registry, budget: budget)
        let prepared: PreparedFile
        do {
            prepared = try opener.prepare(FilePath(file))
        } catch {
            throw CommandFailure("\(file): \(error.message)")
        }
        let document: OpenedDocument?
        do {
            document = try await opener.openInProcess(prepared)
        } catch {
            throw CommandFailure("\(file): \(error)")
        }
        if let document { return Result(prepared: prepared, opened: .document(document)) }
        // Read in a helper: an export is the whole text, not what the index keeps.
        switch opener.read(prepared, preview: preview, text: text, textBytes: .max) {
        case .success(let extraction?):
            return Result(prepared: prepared, opened: .extraction(extraction))
        case .success(nil):
            throw CommandFailure("\(file): it went away while being read")
        case .failure(let failure):
            throw CommandFailure("\(file): \(prepared.selection.map { "\($0.group.documentTypeName): " } ?? "")\(failure)")
        }
    }
}

extension PreviewFormat: ExpressibleByArgument {}

/// Another host's file in an index shared on PostgreSQL, shown from what that host stored:
/// its title, metadata and text, marked as remote. Nothing of this machine is opened (the
/// same path here is another file).
package enum RemoteFile {
    /// The preview, and the row's own metadata fields.
    package static func preview(of row: IndexedFile, host: String, text: String) -> (Preview, [MetadataField]) {
        let fields = fields(of: row)
        let modified = Date(timeIntervalSince1970: Double(row.modified) / 1e9).formatted(.iso8601)
        var elements: [PreviewElement] = [
            .note(nil, "On \(host), not on this machine: the text and metadata \(host) stored in the index, as of its last change (\(modified))."),
            .title(row.title ?? row.name),
            .metadata([MetadataField(key: "host", value: .text(host)), MetadataField(key: "content type", value: .text(row.contentType)),
                       MetadataField(key: "size", value: .integer(Int(row.size)))] + fields),
        ]
        if let kind = row.errorKind { elements.append(.note(.error, "\(kind): \(row.errorMessage ?? "")")) }
        if !text.isEmpty { elements.append(.text(text)) }
        return (Preview(elements: elements), fields)
    }

    /// The metadata the row stored, by key.
    package static func fields(of row: IndexedFile) -> [MetadataField] {
        (row.metadata.flatMap { try? JSONDecoder().decode([String: MetadataValue].self, from: Data($0.utf8)) } ?? [:])
            .sorted { $0.key < $1.key }.map { MetadataField(key: $0.key, value: $0.value) }
    }
}
