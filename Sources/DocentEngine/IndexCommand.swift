import DocentCLI
import ArgumentParser
import ContentTypes
import Engine
import Foundation
import Index
import FileAccess
import Rendering
import SystemPackage

/// `docent index [ROOT...]`: brings the index in line with the files under the roots.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index the files under directories (remembered as roots), or under the remembered roots.",
        discussion: """
            New and changed files are classified and opened read-only by their document type (on every
            core); files whose lstat signature (device, inode, size, mtime, ctime) has not changed are
            skipped; renamed files keep their rows; files that are gone leave the index. Version-control
            internals and caches (.git, .cache, __pycache__, node_modules, …) are not entered.
            """
    )

    @Argument(help: "Directories to index; none: the remembered roots.")
    var roots: [String] = []

    @OptionGroup var location: IndexLocation

    @Flag(help: "Print a summary object: files, indexed, unchanged, moved, removed, errors, seconds.")
    var json = false

    func run() throws {
        Output.ignoreSIGPIPE()
        let settings = try Settings.loadForCommand()
        let index = try location.open()
        let paths = try Roots.resolve(roots, in: index, settings: settings, command: "index", keepMissing: false)
        let progress: (@Sendable (IndexProgress) -> Void)? = Terminal.standardErrorIsTerminal ? Self.showProgress : nil
        let summary: IndexSummary
        let indexer = Indexer(index: index, settings: settings)
        do {
            summary = try indexer.run(roots: paths, progress: progress)
        } catch {
            throw CommandFailure("\(error)")
        }
        // Declaration problems, when the types were needed at all (a run that read nothing never builds them).
        if indexer.typesLoaded { reportDiagnostics(indexer.types) }
        if progress != nil { Terminal.status("") }
        if json {
            Output.line(JSONRenderer.encode(summary))
        } else {
            Output.line("\(summary.files) files: \(summary.indexed) indexed, \(summary.unchanged) unchanged, \(summary.moved) moved, "
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
    static func resolve(_ arguments: [String], in index: FileIndex, settings: Settings, command: String,
                        keepMissing: Bool) throws -> [FilePath] {
        var paths: [FilePath] = []
        for root in arguments {
            let path = Paths.absolute(root)
            guard let status = try? FileStatus.lstat(path), status.kind == .directory else {
                throw CommandFailure("\(root): not a directory")
            }
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
    static func remembered(in index: FileIndex, settings: Settings, keepMissing: Bool = false) throws -> [FilePath] {
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

extension Settings {
    /// The settings for a command; a broken user file is a clear error (exit 2).
    static func loadForCommand() throws -> Settings {
        do { return try Settings.load() } catch { throw CommandFailure("\(error)") }
    }
}
