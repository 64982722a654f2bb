import ArgumentParser
import ContentTypes
import Engine
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
            Environment: DOCENT_CONFIG_DIR (default $XDG_CONFIG_HOME/docent) holds content-types.yaml;
            XDG_DATA_HOME and XDG_DATA_DIRS locate the shared-mime-info database.
            """,
        version: "0.1.0",
        subcommands: [IndexCommand.self, WatchCommand.self, SearchCommand.self, StatusCommand.self, PreviewCommand.self, ExportCommand.self, InfoCommand.self, TypesCommand.self]
    )
}

@main
enum Main {
    static func main() async {
        // The helper process that opens risky documents for the indexer (not a user command).
        if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "_extract", let memory = Int(CommandLine.arguments[3]) {
            ExtractionServer.serve(memoryBytes: memory)
        }
        do {
            var command = try Docent.parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Glibc.exit(exit.rawValue)  // a command's own status (search: 1 when nothing matched)
        } catch let failure as CommandFailure {
            Output.error(failure.message)
            Glibc.exit(2)
        } catch {
            let code = Docent.exitCode(for: error)
            if code == .success {
                Docent.exit(withError: error)  // --help, --version
            }
            let message = Docent.fullMessage(for: error)
            if !message.isEmpty { Output.error(message) }
            // Usage errors (ArgumentParser's 64) and runtime failures both exit 2, as the CLI promises.
            Glibc.exit(code == .failure || code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

/// Reports declaration problems found while loading the type registry, once per run.
func reportDiagnostics(_ registry: UTTypeRegistry) {
    for diagnostic in registry.diagnostics {
        Output.warning(diagnostic.description)
    }
}

/// A command could not do what was asked (a missing file, a type it cannot export): the
/// message says why, and the exit status is 2, without a usage summary.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
