import ArgumentParser
import ContentTypes
import DocentCLI
import FileAccess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `docent`: searches, `info` and `--version` run here; every other command is handed to
/// `docent-engine`, installed beside it.
///
/// The split is for speed: a search needs SQLite and little else, while the engine links
/// libmagic, poppler (with cairo, NSS and the rest), GMime, TagLib, libexif, libarchive,
/// libxml2 and cmark — loading and relocating those ~80 libraries took about 25 ms of every
/// `docent search` process, more than the search itself.
@main
enum Front {
    static func main() async {
        umask(0o077)  // as docent-engine: what Docent writes is the user's alone
        Output.noticeSlowMigrations()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            print(DocentRelease.version + " (commit " + BuildInfo.commit + ")")
            exit(0)
        }
        let help = arguments.contains(where: { ["--help", "-h"].contains($0) })
        if arguments.first == "search", !help, !arguments.contains("--follow") {
            if let plain = SearchCommand.plain(arguments) { CommandLineRunner.run(SearchOnly.self, command: plain) }
            await CommandLineRunner.run(SearchOnly.self, arguments: arguments)
        }
        if arguments.first == "info", !help, !hasExternalViewers() {
            // The built-in readers' table names the reader of each type; external viewers are
            // the user's own groups, known to the engine.
            InfoCommand.readers.withLock { $0 = { BuiltInReaders.readers() } }
            if let plain = InfoCommand.plain(arguments) { CommandLineRunner.run(InfoOnly.self, command: plain) }
            await CommandLineRunner.run(InfoOnly.self, arguments: arguments)
        }
        Engine.exec(CommandLine.arguments)
    }

    /// Whether the user's `config.yaml` may declare `viewers:` (a cheap look, no YAML parsing).
    static func hasExternalViewers() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let file = UTTypeRegistry.configDirectory(environment: environment) + "/config.yaml"
        guard let data = WholeFile.read(file, limit: 1 << 20) else { return false }
        return String(decoding: data, as: UTF8.self).contains("viewers")
    }
}

/// The commands this executable runs itself.
struct SearchOnly: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "docent", subcommands: [SearchCommand.self])
}

struct InfoOnly: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "docent", subcommands: [InfoCommand.self])
}

enum Engine {
    /// Replaces this process with `docent-engine` beside it, with the same arguments.
    static func exec(_ arguments: [String]) -> Never {
        let engine = Self.path()
        let argv = arguments.map { strdup($0) } + [nil]
        execv(engine, argv)
        let message = "docent: cannot run \(engine): \(String(cString: strerror(errno)))\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(2)
    }

    /// `docent-engine` in this executable's directory.
    static func path() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "docent-engine" }
        let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return "docent-engine" }
        return own[..<slash] + "/docent-engine"
    }
}
