import ArgumentParser
import Foundation
import Index
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Where the index lives, for every command that uses it.
package struct IndexLocation: ParsableArguments {
    @Option(name: .customLong("index"), help: "The index database (default: $XDG_DATA_HOME/docent/index.sqlite).")
    package var path: String?

    package init() {}

    package var resolved: String { path ?? FileIndex.defaultPath() }

    /// Opens the index; a damaged or newer index is a clear error (exit 2).
    package func open(mappedReads: Bool = false) throws -> FileIndex {
        do { return try FileIndex(path: resolved, mappedReads: mappedReads) } catch { throw CommandFailure("\(error)") }
    }
}

/// A command could not do what was asked (a missing file, a type it cannot export): the
/// message says why, and the exit status is 2, without a usage summary.
package struct CommandFailure: Error {
    package let message: String
    package init(_ message: String) { self.message = message }
}

/// Runs the command line as `root` parses it, with Docent's exit statuses: 0 success, 1
/// nothing found (a command's own ExitCode), 2 bad usage or a failure.
package enum CommandLineRunner {
    package static func run(_ root: any ParsableCommand.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        do {
            var command = try root.parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            Glibc.exit(0)
        } catch let exit as ExitCode {
            Glibc.exit(exit.rawValue)  // a command's own status (search: 1 when nothing matched)
        } catch let failure as CommandFailure {
            Output.error(failure.message)
            Glibc.exit(2)
        } catch {
            let code = root.exitCode(for: error)
            if code == .success {
                root.exit(withError: error)  // --help, --version
            }
            let message = root.fullMessage(for: error)
            if !message.isEmpty { Output.error(message) }
            // Usage errors (ArgumentParser's 64) and runtime failures both exit 2, as the CLI promises.
            Glibc.exit(code == .failure || code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

package enum Paths {
    /// `path` made absolute against the working directory, `.` and `..` resolved lexically.
    package static func absolute(_ path: String) -> FilePath {
        var result = FilePath(path)
        if !result.isAbsolute { result = FilePath(FileManager.default.currentDirectoryPath).pushing(result) }
        return result.lexicallyNormalized()
    }
}
