public import ArgumentParser
import DocentCLI
import DocentKit
import Engine
import FileAccess
import Foundation
import Index
import Logging
import PostgresIndex
import SystemPackage
import Watcher

/// `docent serve`: the search page, previews and the status in a browser, on this machine.
public struct ServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Search and preview in a browser: a local web viewer over the index.",
        discussion: """
            Prints the viewer's address, with its access token, as the first line of standard output \
            (http://127.0.0.1:PORT/?token=…). The token is random, kept beside the index (0600) so \
            bookmarks survive a restart, and replaced with --new-token. Only 127.0.0.1 is listened on \
            unless --bind says otherwise. When no `docent watch` keeps the index current, one runs in \
            this process while it serves. Stop with Ctrl-C.
            """
    )

    @OptionGroup var location: IndexLocation

    @Option(help: "The port to listen on (0: any free port).")
    var port = 7187

    @Option(help: "The address to listen on. Anything but loopback serves your files' text to the network (no TLS).")
    var bind = "127.0.0.1"

    @Flag(help: "Open the viewer in the desktop's browser (xdg-open).")
    var open = false

    @Flag(name: .customLong("new-token"), help: "Replace the access token (the old one stops working).")
    var newToken = false

    public init() {}

    public func validate() throws {
        if !(0 ... 65535).contains(port) { throw ValidationError("--port must be between 0 and 65535.") }
        if bind.isEmpty { throw ValidationError("--bind needs an address, such as 127.0.0.1.") }
    }

    public func run() async throws {
        Output.ignoreSIGPIPE()
        guard location.isServer || FileManager.default.fileExists(atPath: location.resolved) else {
            throw CommandFailure("there is no index at \(location.resolved) yet: run `docent index DIRECTORY` first")
        }
        let index = try location.open()
        let settings = try Settings.loadForCommand()
        let token = try AccessToken.load(beside: index.path, renew: newToken)
        if !["127.0.0.1", "::1", "localhost"].contains(bind) {
            Output.warning("listening on \(bind): anyone who can reach it and has the token can read the text of every indexed file, unencrypted")
        }
        // A SQLite index without a watcher gets one here; on PostgreSQL each host's own
        // `docent watch` keeps its rows current.
        let here = try (index as? FileIndex).flatMap { try BackgroundWatch.unlessWatched($0, while: "the viewer serves") }
        defer { here?.stop() }
        let watching = here != nil || RunningWatcher.find(index: index.path) != nil
        // Searches follow commits; the status page follows the watcher's status as well.
        let commits: IndexChanges, statusChanges: IndexChanges
        do {
            if let shared = index as? PostgresIndex {
                commits = IndexChanges([try shared.changes()])
                statusChanges = IndexChanges([try shared.changes(), try FileFollower(files: [FilePath(index.watchStatusPath)])])
            } else {
                commits = try IndexChanges([index.path, index.path + "-wal"])
                statusChanges = try IndexChanges([index.path, index.path + "-wal", index.watchStatusPath])
            }
        } catch {
            throw CommandFailure("cannot follow \(index.displayName): \(error)")
        }
        let documents = ViewerDocuments(budget: settings.budget, previews: PreviewCache(), thumbnails: ThumbnailCache())
        let server = ViewerServer(index: index, documents: documents, commits: commits, statusChanges: statusChanges, token: token,
                                  bind: bind, port: port, watching: watching, opener: settings.opener)
        var logger = Logger(label: "docent.serve", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        let open = self.open, bind = self.bind
        do {
            try await server.run(logger: logger) { port in
                let host = bind.contains(":") ? "[\(bind)]" : bind
                let address = "http://\(host):\(port)/?token=\(token)"
                Output.line(address)
                if open { Self.openInBrowser(address) }
            }
        } catch {
            throw CommandFailure("cannot serve on \(bind):\(port): \(error)" + (port != 0 ? " (--port 0 picks a free port)" : ""))
        }
    }

    /// Hands the address to the desktop's browser, not waiting for it.
    static func openInBrowser(_ address: String) {
        do { try Detached.start(["xdg-open", address]) } catch { Output.warning("could not run xdg-open: \(error); open the address above by hand") }
    }
}

/// The viewer's access token: 32 random bytes as hex, kept beside the index, readable by the
/// user alone.
enum AccessToken {
    static func load(beside indexPath: String, renew: Bool) throws -> String {
        let path = indexPath + ".token"
        if !renew, let kept = WholeFile.read(path, limit: 256).map({ String(decoding: $0, as: UTF8.self) }),
           kept.count == 64, kept.allSatisfy(\.isHexDigit) {
            return kept
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0 ..< 32).map { _ in String(format: "%02x", UInt8.random(in: 0 ... 255, using: &generator)) }.joined()
        do { try PrivateStorage.replace(path, with: Array(token.utf8)) } catch {
            throw CommandFailure("cannot keep the access token at \(path): \(error)")
        }
        return token
    }
}
