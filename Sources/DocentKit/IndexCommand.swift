import DocentCLI
import ArgumentParser
import ContentTypes
package import Engine
import Foundation
import Index
import FileAccess
import Rendering
import SystemPackage
import Watcher

/// `docent index [ROOT...]`: brings the index in line with the files under the roots.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index the files under directories (remembered as roots), or under the remembered roots.",
        discussion: """
            New and changed files are classified and opened read-only by their document type (on every \
            core); files whose lstat signature (device, inode, size, mtime, ctime) has not changed are \
            skipped; renamed files keep their rows; files that are gone leave the index. Version-control \
            internals and caches (.git, .cache, __pycache__, node_modules, …) are not entered.
            """
    )

    @Argument(help: "Directories to index; none: the remembered roots.")
    var roots: [String] = []

    @OptionGroup var location: IndexLocation

    @Flag(help: "Print a summary object: files, indexed, unchanged, moved, removed, errors, seconds.")
    var json = false

    @Flag(help: "First check the whole index (SQLite's integrity_check, FTS5's integrity-check); a damaged one is kept aside as a copy, emptied and rebuilt.")
    var check = false

    func run() throws {
        Output.ignoreSIGPIPE()
        let settings = try Settings.loadForCommand()
        let session = try location.openForWriting(thoroughCheck: check)
        defer { session.finish() }
        let paths = try Roots.resolve(roots, in: session.index, settings: settings, command: "index", keepMissing: false)
        let progress: (@Sendable (IndexProgress) -> Void)? = Terminal.standardErrorIsTerminal ? Self.showProgress : nil
        var summary: IndexSummary
        var indexer = Indexer(index: session.index, settings: settings)
        do {
            summary = try indexer.run(roots: paths, progress: progress)
        } catch let error as IndexError where error.isDamage {
            // Damage met on the way: rebuilt (unless a watcher does it), then read again whole.
            try session.rebuildUnlessWatched(after: error)
            indexer = Indexer(index: session.index, settings: settings)
            do { summary = try indexer.run(roots: paths, progress: progress) } catch { throw CommandFailure("\(error)") }
        } catch let error as IndexError {
            throw CommandFailure("\(error)" + (error.isStorage ? "; nothing was lost: the next run continues where this one stopped" : ""))
        } catch {
            throw CommandFailure("\(error)")
        }
        // Declaration problems, when the types were needed at all (a run that read nothing never builds them).
        if indexer.typesLoaded { reportDiagnostics(indexer.types) }
        if progress != nil { Terminal.status("") }
        if json {
            Output.line(JSONRenderer.encode(summary))
        } else {
            let copies = summary.identicalCopies > 0 ? " (\(summary.identicalCopies) as copies of files just read)" : ""
            Output.line("\(summary.files) files: \(summary.indexed) indexed\(copies), \(summary.unchanged) unchanged, \(summary.moved) moved, "
                        + "\(summary.removed) removed, \(summary.errors) with errors, in \(String(format: "%.2f", summary.seconds)) s")
        }
    }

    /// "12,345 of 20,000 files · 812 files/s · /home/me/src/docent/Sources"
    @Sendable static func showProgress(_ progress: IndexProgress) {
        let seconds = max(0.001, Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18)
        let rate = Int((Double(progress.done) / seconds).rounded())
        Terminal.status("\(progress.done.formatted()) of \(progress.found.formatted()) files · \(rate.formatted()) files/s · "
                        + progress.directory.string)
    }
}

enum Roots {
    /// The directories given on the command line (each must be one), or, with none, the
    /// configured and remembered roots; no roots at all is an error saying how to add one.
    static func resolve(_ arguments: [String], in index: any IndexStore, settings: Settings, command: String,
                        keepMissing: Bool) throws -> [FilePath] {
        var paths: [FilePath] = []
        for root in arguments {
            var path = Paths.absolute(root)
            if let kind = VirtualFileSystem.kind(of: path) {
                throw CommandFailure("\(root): a directory of the kernel's \(kind) file system, whose files are made up as they are read, not documents: Docent does not index it")
            }
            guard let status = try? FileStatus.lstat(path) else { throw CommandFailure("\(root): no such directory") }
            // A root given as a link to a directory (~/Documents → /data/documents): the directory.
            if status.kind == .symbolicLink, let target = path.withPlatformString({ realpath($0, nil) }) {
                defer { free(target) }
                let resolved = FilePath(platformString: target)
                if (try? FileStatus.lstat(resolved))?.kind == .directory { path = resolved }
            }
            guard (try? FileStatus.lstat(path))?.kind == .directory else { throw CommandFailure("\(root): not a directory") }
            paths.append(path)
        }
        if paths.isEmpty {
            paths = try remembered(in: index, settings: settings, keepMissing: keepMissing)
            guard !paths.isEmpty else {
                throw CommandFailure("no roots yet: give a directory, as in `docent \(command) ~/Documents`, or list roots in \(Settings.userFilePath())")
            }
        }
        return paths
    }

    /// The roots to use when none are given: those in the settings, then those remembered
    /// in the index; ones that are missing are reported and left out.
    static func remembered(in index: any IndexStore, settings: Settings, keepMissing: Bool = false) throws -> [FilePath] {
        var seen: Set<FilePath> = []
        var paths: [FilePath] = []
        let stored: [[UInt8]]
        do { stored = try index.roots().map(\.path) } catch { throw CommandFailure("\(error)") }
        for path in settings.roots.map(Paths.absolute) + stored.map(FilePath.init(bytes:))
        where seen.insert(path).inserted {
            guard let status = try? FileStatus.lstat(path), status.kind == .directory else {
                Output.warning("\(path.string): root not found; " + (keepMissing ? "watching for it to appear" : "skipped"))
                if keepMissing { paths.append(path) }
                continue
            }
            paths.append(path)
        }
        return paths
    }
}

extension IndexLocation {
    /// Opens the index for a command that writes it: checked when it may be damaged, and
    /// rebuilt from its roots when it is (see `IndexSession`).
    func openForWriting(thoroughCheck: Bool = false, report: @escaping (String) -> Void = { Output.warning($0) }) throws -> IndexSession {
        if isServer { return IndexSession(store: try openServerIndex(waiting: 60)) }
        do {
            return try IndexSession(path: resolved, privateDirectory: path == nil, thoroughCheck: thoroughCheck, report: report)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}

extension IndexSession {
    /// Rebuilds the index after `error`, unless a running watcher is the one to (it is
    /// told, and this command fails saying so).
    func rebuildUnlessWatched(after error: IndexError) throws {
        guard try WatchLock.tryAcquire(index) else {
            throw IndexLocation.failure(error, path: path)
        }
        do { try rebuild(after: error) } catch { throw CommandFailure("\(error)") }
    }
}

extension Settings {
    /// This process's settings, read once: at start-up for the external viewers' groups
    /// (`DocentMain`), then by the command.
    static let current = Result { () throws(SettingsError) in try Settings.load() }

    /// The settings for a command; a broken user file is a clear error (exit 2).
    package static func loadForCommand() throws -> Settings {
        do { return try current.get() } catch { throw CommandFailure("\(error)") }
    }
}
