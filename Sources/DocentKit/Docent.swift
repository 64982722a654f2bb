package import ArgumentParser
import CMalloc
import ContentTypes
import DocentCLI
import DocumentModel
import Engine
import Index
#if canImport(Glibc)
import Glibc
#endif

/// The `docent` command: a document indexer and viewer for Linux.
struct Docent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docent",
        abstract: "Classify, index and preview the documents under your directories.",
        discussion: """
            Exit status: 0 success, 1 nothing found, 2 an error (bad usage, or a file that could not be examined).
            Environment: DOCENT_CONFIG_DIR (default $XDG_CONFIG_HOME/docent) holds content-types.yaml; \
            XDG_DATA_HOME and XDG_DATA_DIRS locate the shared-mime-info database.
            """,
        version: DocentMain.version + " (commit " + BuildInfo.commit + ")",
        subcommands: [IndexCommand.self, WatchCommand.self, SearchCommand.self, StatusCommand.self, PreviewCommand.self, ExportCommand.self, InfoCommand.self, TypesCommand.self,
                      PauseCommand.self, ResumeCommand.self, DesktopCommand.self]
            + DocentMain.commands
    )
}

/// Runs a complete `docent` — every command, and the helper — with `groups` in front of
/// the built-in viewing groups: what `docent-engine` is (with none) and what a `DocentApp`'s
/// `main()` does (with its scene's).
package enum DocentMain {
    /// Docent's release (CHANGELOG.md); `docent --version` adds the commit built from.
    package static let version = DocentRelease.version

    /// On the main actor, so the helper's `serve` starts on the main thread before any task
    /// does: a helper that ran on Swift's cooperative pool had threads that libdispatch gave
    /// their own QoS priority (nice 0 and -4), not the idle class it inherited.
    /// Commands beyond the built-in ones (`docent serve`, from the DocentViewer product), set
    /// by `run` before the command line is parsed.
    nonisolated(unsafe) static var commands: [any ParsableCommand.Type] = []

    /// With `commands` added to the built-in ones: `DocentMain.run(groups: [], commands:
    /// [ServeCommand.self])` is `docent-engine`.
    @MainActor
    package static func run(groups: [DocumentGroup], commands: [any ParsableCommand.Type] = []) async -> Never {
        self.commands = commands
        docent_tune_malloc()
        Output.noticeSlowMigrations()
        // Everything Docent writes holds what it read from the user's files: readable by the
        // user alone, whatever the umask (PrivateStorage also sets modes explicitly). Docent
        // never writes inside a watched root, so this touches nothing of the user's.
        umask(0o077)
        // The user's external viewers (config.yaml) after the app's own groups. A settings file
        // with a mistake registers none here; the command itself then says what is wrong.
        let viewers = (try? Settings.current.get())?.viewerGroups ?? []
        AppDocuments.register(groups + viewers, servesHelper: true)
        // The helper process that opens risky documents for the indexer (not a user command).
        if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "_extract", let memory = Int(CommandLine.arguments[3]) {
            ExtractionServer.serve(memoryBytes: memory)
        }
        SearchCommand.following = { command, request, index in try command.follow(request, in: index) }
        if let settings = try? Settings.current.get() { IndexLocation.configured.withLock { $0 = (settings.index, settings.host) } }
        InfoCommand.readers.withLock { $0 = { AppDocuments.groups.map { ($0.documentTypeName, $0.readableContentTypes) } } }
        // A synchronous command runs here, on the main thread; only an asynchronous one
        // (serve, preview, export) is awaited.
        let command = CommandLineRunner.runUnlessAsync(Docent.self)
        await CommandLineRunner.run(Docent.self, async: command)
    }
}

/// Reports declaration problems found while loading the type registry, once per run.
func reportDiagnostics(_ registry: UTTypeRegistry) {
    for diagnostic in registry.diagnostics {
        Output.warning(diagnostic.description)
    }
}
