import ArgumentParser
import ContentTypes
import Engine
import Foundation
import Index
import FileAccess
import Rendering
import SystemPackage

/// Where the index lives, for every command that uses it.
struct IndexLocation: ParsableArguments {
    @Option(name: .customLong("index"), help: "The index database (default: $XDG_DATA_HOME/docent/index.sqlite).")
    var path: String?

    var resolved: String { path ?? FileIndex.defaultPath() }

    /// Opens the index; a damaged or newer index is a clear error (exit 2).
    func open() throws -> FileIndex {
        do { return try FileIndex(path: resolved) } catch { throw CommandFailure("\(error)") }
    }
}

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
        let index = try location.open()
        var paths: [FilePath] = []
        for root in roots {
            let path = Paths.absolute(root)
            guard let status = try? FileStatus.lstat(path), status.kind == .directory else {
                throw CommandFailure("\(root): not a directory")
            }
            paths.append(path)
        }
        if paths.isEmpty {
            paths = ((try? index.roots()) ?? []).map { FilePath(String(decoding: $0.path, as: UTF8.self)) }
            guard !paths.isEmpty else { throw CommandFailure("no roots yet: give a directory, as in `docent index ~/Documents`") }
        }
        let registry = UTTypeRegistry.shared
        reportDiagnostics(registry)
        var progress: (@Sendable (Int, FilePath) -> Void)?
        if Terminal.standardErrorIsTerminal {
            progress = { done, path in Terminal.status("\(done) files · \(path.removingLastComponent().string)") }
        }
        let summary: IndexSummary
        do {
            summary = try Indexer(index: index, types: registry).run(roots: paths, progress: progress)
        } catch {
            throw CommandFailure("\(error)")
        }
        if progress != nil { Terminal.status("") }
        if json {
            Output.line(JSONRenderer.encode(summary))
        } else {
            Output.line("\(summary.files) files: \(summary.indexed) indexed, \(summary.unchanged) unchanged, \(summary.moved) moved, "
                        + "\(summary.removed) removed, \(summary.errors) with errors, in \(String(format: "%.2f", summary.seconds)) s")
        }
    }
}

enum Paths {
    /// `path` made absolute against the working directory, `.` and `..` resolved lexically.
    static func absolute(_ path: String) -> FilePath {
        var result = FilePath(path)
        if !result.isAbsolute { result = FilePath(FileManager.default.currentDirectoryPath).pushing(result) }
        return result.lexicallyNormalized()
    }
}
