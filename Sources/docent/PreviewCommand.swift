import ArgumentParser
import ContentTypes
import DocumentModel
import Documents
import Engine
import Foundation
import Rendering
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
            The file is classified, opened read-only by the most specific document type that reads
            its content type, and previewed. Formats: text (the default on a pipe), ansi (the default
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

    func validate() throws {
        if maxBytes < 1 { throw ValidationError("--max-bytes must be at least 1.") }
        if let width, width < 20 { throw ValidationError("--width must be at least 20.") }
    }

    func run() async throws {
        Output.ignoreSIGPIPE()
        let opened = try await Opening.open(file, readLimit: maxBytes)
        let format = format ?? (Output.isTerminal ? .ansi : .text)
        let preview = opened.document.preview()
        switch format {
        case .json:
            Output.line(JSONRenderer.encode(PreviewOutput(path: file, opened: opened, preview: preview)))
        default:
            let renderer = format.renderer(width: width ?? (Output.isTerminal ? Terminal.columns : nil),
                                           colour: Output.isTerminal && !Terminal.noColor)
            Output.write(renderer.render(preview))
        }
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

    init(path: String, opened: Opening.Result, preview: Preview) {
        self.path = path
        contentType = opened.document.contentType.identifier
        documentType = opened.document.documentTypeName
        selection = opened.document.selection.description
        title = opened.document.metadata.title
        metadata = opened.document.metadata.fields
        problems = opened.document.metadata.problems
        self.preview = PreviewJSON(preview)
    }
}

/// Opening one file for the preview and export commands.
enum Opening {
    struct Result {
        let prepared: PreparedFile
        let document: OpenedDocument
    }

    /// Classifies and opens `file`; a path that cannot be examined is a usage error (exit 2).
    static func open(_ file: String, readLimit: Int) async throws -> Result {
        let registry = UTTypeRegistry.shared
        reportDiagnostics(registry)
        let loader: DocumentLoader
        do { loader = try DocumentLoader(types: registry, readLimit: readLimit) } catch { throw CommandFailure("\(error)") }
        let prepared: PreparedFile
        do {
            prepared = try loader.prepare(FilePath(file))
        } catch {
            throw CommandFailure("\(file): \(error.message)")
        }
        do {
            return Result(prepared: prepared, document: try await prepared.open(in: loader.documents))
        } catch {
            throw CommandFailure("\(file): \(error)")
        }
    }
}

extension PreviewFormat: ExpressibleByArgument {}
