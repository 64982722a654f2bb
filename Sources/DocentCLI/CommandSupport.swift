import ContentTypes
package import FileAccess
package import ArgumentParser
package import Foundation
package import Index
import PostgresIndex
import Yams
package import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Where the index lives, for every command that uses it.
package struct IndexLocation: ParsableArguments {
    @Option(name: .customLong("index"), help: "The index: a database file (default: $XDG_DATA_HOME/docent/index.sqlite, or `index:` in config.yaml), or a postgresql:// address shared by several hosts.")
    package var path: String?

    package init() {}

    /// The index asked for: `--index`, else `index:` in config.yaml (`configured`, set by the
    /// engine from its settings), else the default file.
    package var resolved: String { path ?? Self.configured.withLock { $0.index } ?? FileIndex.defaultPath() }

    /// Whether the index is on a PostgreSQL server rather than in a file.
    package var isServer: Bool { Self.isServerAddress(resolved) }

    package static func isServerAddress(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// `index:` and `host:` from `config.yaml` (`ConfiguredIndex`), read once; docent-engine
    /// sets them from its validated settings instead.
    package static let configured = Locked<(index: String?, host: String?)>(ConfiguredIndex.read())

    /// This machine's name in a shared index: `DOCENT_HOST`, else `host:`, else the host name.
    package static var hostName: String {
        ProcessInfo.processInfo.environment["DOCENT_HOST"].flatMap { $0.isEmpty ? nil : $0 }
            ?? configured.withLock { $0.host } ?? LocalHost.name
    }

    /// Opens the index for reading; a damaged or newer index is a clear error (exit 2).
    package func open() throws -> any IndexStore {
        if isServer { return try openServerIndex(waiting: 0) }
        do {
            return try FileIndex(path: resolved, privateDirectory: path == nil)
        } catch {
            throw Self.failure(error, path: resolved)
        }
    }

    /// Opens the index for searches alone (`FileIndex.searching`): one connection, no pool.
    package func openForSearching() throws -> any IndexStore {
        if isServer { return try openServerIndex(waiting: 0, searching: true) }
        do {
            return try FileIndex.searching(path: resolved, privateDirectory: path == nil)
        } catch {
            throw Self.failure(error, path: resolved)
        }
    }

    /// Connects to the PostgreSQL index, waiting up to `waiting` seconds for a server that is
    /// away (a writer waits; a search does not). A password in the address is refused: it
    /// would be seen by every process that lists command lines (libpq reads it from ~/.pgpass).
    package func openServerIndex(waiting: Double, searching: Bool = false) throws -> any IndexStore {
        let address = resolved
        let userPassword = address.range(of: "://").flatMap { scheme in
            address[scheme.upperBound...].firstIndex(of: "@").map { address[scheme.upperBound..<$0].contains(":") }
        } ?? false
        if userPassword || address.contains("password=") {
            throw CommandFailure("the index address holds a password: put it in ~/.pgpass (or PGPASSFILE, a service file) instead")
        }
        let state = (FileIndex.defaultPath() as NSString).deletingLastPathComponent
        do {
            return try PostgresIndex(address: address, host: Self.hostName, stateDirectory: state, reconnectWindow: waiting,
                                     searching: searching)
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// What a reading command says when the index fails it: for damage, one line saying
    /// what will repair it — and word left for the writer that will (see `flagDamage`).
    package static func failure(_ error: any Error, path: String) -> CommandFailure {
        guard let error = error as? IndexError, case .damaged(_, let message) = error else { return CommandFailure("\(error)") }
        FileIndex.flagDamage(at: path, message)
        if let watcher = RunningWatcher.find(index: path), kill(watcher, SIGUSR1) == 0 {
            return CommandFailure("the index at \(path) is damaged (\(message)); the running `docent watch` (pid \(watcher)) "
                                  + "is rebuilding it from its roots now")
        }
        return CommandFailure("the index at \(path) is damaged (\(message)); `docent index` (or `docent watch`) "
                              + "will rebuild it from its roots")
    }
}

/// The `docent watch` keeping an index current, if one runs.
package enum RunningWatcher {
    /// Its process id: the one its published status names, when that process holds the
    /// watch lock and is Docent's (a recycled pid must never be signalled).
    package static func find(index path: String) -> pid_t? {
        guard let data = WholeFile.read(path + ".watch.json"),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let pid = (object["pid"] as? NSNumber)?.int32Value, pid > 0,
              let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
              name.hasPrefix("docent")
        else { return nil }
        let fd = Glibc.open(path + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0 else {  // nobody holds it: no watcher
            flock(fd, LOCK_UN)
            return nil
        }
        return pid
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
    /// Runs a synchronous command built without ArgumentParser's parsing (a fast path for plain
    /// command lines), with the same exits and messages as `run(_:arguments:)`.
    package static func run(_ root: any ParsableCommand.Type, command: consuming some ParsableCommand) -> Never {
        do {
            try command.run()
            Glibc.exit(0)
        } catch {
            exit(root, error)
        }
    }

    package static func run(_ root: any ParsableCommand.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Never {
        await run(root, async: runUnlessAsync(root, arguments: arguments))
    }

    /// Runs an asynchronous command (from `runUnlessAsync`) with Docent's exit statuses.
    package static func run(_ root: any ParsableCommand.Type, async command: any AsyncParsableCommand) async -> Never {
        var command = command
        do {
            try await command.run()
            Glibc.exit(0)
        } catch {
            exit(root, error)
        }
    }

    /// Parses the command line and runs it here, on the calling thread, unless it is an
    /// asynchronous command, which it returns for the caller to await. A synchronous command
    /// (`watch`, `index`, …) never touches Swift's concurrency pool: on Linux that pool is
    /// libdispatch's global queues, whose first use starts a timer that wakes the process
    /// once a second for good (see `OwnThreads`) — a sleeping watcher must not.
    package static func runUnlessAsync(_ root: any ParsableCommand.Type,
                                       arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> any AsyncParsableCommand {
        do {
            let command = try root.parseAsRoot(arguments)
            if let command = command as? any AsyncParsableCommand { return command }
            run(root, command: command)
        } catch {
            exit(root, error)
        }
    }

    /// The exit for `error`: a command's own status, a failure's message with status 2, usage
    /// errors with ArgumentParser's message and status 2, help and version with status 0.
    private static func exit(_ root: any ParsableCommand.Type, _ error: any Error) -> Never {
        do {
            throw error
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

/// `index:` and `host:` in the user's `config.yaml`, for the commands `docent` runs itself (the
/// engine reads them with every other setting, and validates them, in `Settings`). A file that
/// does not parse gives nothing here; the engine's commands say what is wrong with it.
package enum ConfiguredIndex {
    package static func read(environment: [String: String] = ProcessInfo.processInfo.environment) -> (index: String?, host: String?) {
        let file = UTTypeRegistry.configDirectory(environment: environment) + "/config.yaml"
        guard let data = WholeFile.read(file, limit: 1 << 20) else { return (nil, nil) }
        let text = String(decoding: data, as: UTF8.self)
        // Most files name neither: no YAML parsing for them.
        guard text.contains("index") || text.contains("host"),
              let map = (try? Yams.load(yaml: text)) as? [String: Any] else { return (nil, nil) }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let index = (map["index"] as? String).map { $0.hasPrefix("~/") ? home + $0.dropFirst() : $0 }
        return (index, map["host"] as? String)
    }
}

/// Docent's release (CHANGELOG.md): `docent --version` adds the commit built from. Here, where
/// both executables reach it: `docent` answers `--version` itself (handing it to
/// `docent-engine` cost the loading of its ~80 libraries, 0.09 s).
package enum DocentRelease {
    package static let version = "0.2.0"
}
