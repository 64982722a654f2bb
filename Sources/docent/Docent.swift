import ArgumentParser
import ContentTypes
#if canImport(Glibc)
import Glibc
#endif

/// The `docent` command: a document indexer and viewer for Linux.
struct Docent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docent",
        abstract: "Classify, index and preview the documents under your directories.",
        discussion: """
            Exit status: 0 success, 1 nothing found, 2 an error (bad usage, or a file that could not be examined).
            Environment: DOCENT_CONFIG_DIR (default $XDG_CONFIG_HOME/docent) holds content-types.yaml;
            XDG_DATA_HOME and XDG_DATA_DIRS locate the shared-mime-info database.
            """,
        version: "0.1.0",
        subcommands: [InfoCommand.self, TypesCommand.self]
    )
}

@main
enum Main {
    static func main() {
        do {
            var command = try Docent.parseAsRoot()
            try command.run()
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
