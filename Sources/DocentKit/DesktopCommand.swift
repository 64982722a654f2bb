import ArgumentParser
import CDesktopBus
import ContentTypes
import DocentCLI
import Engine
import FileAccess
import Foundation
import Index
#if canImport(Glibc)
import Glibc
#endif

/// `docent desktop`: Docent's results in GNOME Shell's and KRunner's search.
struct DesktopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desktop",
        abstract: "Search Docent's index from GNOME Shell and KRunner (a D-Bus service).",
        discussion: """
            `docent desktop install` writes the D-Bus service file, the KRunner plugin and the desktop entry under \
            $XDG_DATA_HOME (GNOME Shell's search provider entry goes in a system data directory: it says how). \
            D-Bus then starts `docent desktop run` when the desktop first searches; it leaves after a minute \
            without questions. A result opens with `opener:` from config.yaml (xdg-open by default).
            """,
        subcommands: [Run.self, Install.self, Uninstall.self],
        defaultSubcommand: Run.self
    )

    /// The bus name and object paths, as the installed files name them.
    static let busName = "org.docent.Docent.SearchProvider"
    static let gnomePath = "/org/docent/Docent/SearchProvider"
    static let krunnerPath = "/org/docent/Docent/KRunner"

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve org.gnome.Shell.SearchProvider2 and org.kde.krunner1 on the session bus (D-Bus starts this).")

        @OptionGroup var location: IndexLocation

        @Option(name: .customLong("idle-exit"), help: "Leave after this many seconds without a question (0: never).")
        var idleExit = 0

        func validate() throws {
            if idleExit < 0 { throw ValidationError("--idle-exit must be 0 or more seconds.") }
        }

        func run() throws {
            let service = DesktopSearch(location: location, opener: try Settings.loadForCommand().opener)
            try service.serve(idleSeconds: idleExit)
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install the D-Bus service, the KRunner plugin and GNOME Shell's search provider entry.")

        @OptionGroup var places: Places

        func run() throws {
            let written = try DesktopFiles.install(data: places.data, gnome: places.gnomeDirectory, docent: DesktopFiles.docentExecutable())
            for path in written.paths { Output.line("installed \(path)") }
            if let command = written.gnomeCommand {
                Output.line("GNOME Shell reads search providers from system directories only; to add Docent there run:\n  \(command)")
            }
        }
    }

    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove what `docent desktop install` wrote.")

        @OptionGroup var places: Places

        func run() throws {
            let paths = DesktopFiles.targets(data: places.data, gnome: places.gnomeDirectory ?? "/usr/local/share").map(\.target)
                + [places.data + "/docent/docent.search-provider.ini"]  // the copy left for `sudo install`
            for path in paths where unlink(path) == 0 { Output.line("removed \(path)") }
        }
    }
}

/// Where `install` puts the files and `uninstall` looks for them.
struct Places: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The user's data directory (default: $XDG_DATA_HOME, ~/.local/share).")
    var dataDirectory: String?

    @Option(name: .customLong("gnome-dir"), help: "A system data directory for GNOME Shell's entry (default: /usr/local/share when writable).")
    var gnomeDirectory: String?

    var data: String { dataDirectory ?? DesktopFiles.userDataDirectory() }
}

/// The files that make Docent a desktop search provider, from `Config/desktop/`.
enum DesktopFiles {
    struct Target {
        var target: String
        var contents: [UInt8]
        var isGNOME = false
    }

    static func userDataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    }

    /// The `docent` the service file starts: the one beside this executable, else this one
    /// (an app built on DocentKit is a whole `docent` in one executable).
    static func docentExecutable() -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let beside = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("docent").path
        return own.hasSuffix("/docent-engine") && FileManager.default.isExecutableFile(atPath: beside) ? beside : own
    }

    static func targets(data: String, gnome: String) -> [Target] {
        [
            Target(target: data + "/dbus-1/services/\(DesktopCommand.busName).service", contents: PackageResources.search_provider_service),
            Target(target: data + "/krunner/dbusplugins/docent.desktop", contents: PackageResources.krunner_desktop),
            Target(target: data + "/applications/docent.desktop", contents: PackageResources.docent_desktop),
            Target(target: gnome + "/gnome-shell/search-providers/docent.search-provider.ini", contents: PackageResources.search_provider_ini,
                   isGNOME: true),
        ]
    }

    /// Writes the files with `docent` in their `Exec=` lines; GNOME Shell's entry goes to
    /// `gnome` (or /usr/local/share when writable), else the command that puts it there is returned.
    static func install(data: String, gnome: String?, docent: String) throws -> (paths: [String], gnomeCommand: String?) {
        let gnomeData = gnome ?? "/usr/local/share"
        var written: [String] = [], gnomeCommand: String?
        for file in targets(data: data, gnome: gnomeData) {
            let text = String(decoding: file.contents, as: UTF8.self).replacingOccurrences(of: "@DOCENT@", with: Self.quoted(docent))
            let directory = (file.target as NSString).deletingLastPathComponent
            do {
                if file.isGNOME, gnome == nil, access(gnomeData, W_OK) != 0 {
                    // Left for the user to place, with the rights that takes.
                    let copy = data + "/docent/docent.search-provider.ini"
                    try FileManager.default.createDirectory(atPath: data + "/docent", withIntermediateDirectories: true)
                    try Data(text.utf8).write(to: URL(fileURLWithPath: copy))
                    gnomeCommand = "sudo install -D -m 644 \(copy) \(file.target)"
                    continue
                }
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: file.target))
                chmod(file.target, 0o644)
                written.append(file.target)
            } catch {
                throw CommandFailure("cannot write \(file.target): \(error.localizedDescription)")
            }
        }
        return (written, gnomeCommand)
    }

    /// A path as a desktop entry's or service file's `Exec=` takes it.
    static func quoted(_ path: String) -> String {
        path.contains(where: { " \t\"'\\$`".contains($0) })
            ? "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" : path
    }
}
