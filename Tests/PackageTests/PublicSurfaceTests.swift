import Foundation
import Testing

/// DocentKit's public surface, as `import DocentKit` shows it to another package (DocentKit
/// and the modules it re-exports), read from the symbol graphs of the modules this test run
/// built, against the list checked in beside this file: the surface changes only on purpose.
/// After a deliberate change, write the list again with `DOCENT_WRITE_API=1 swift test
/// --filter PublicSurface` and review its diff.
@Suite("DocentKit's public surface")
struct PublicSurfaceTests {
    static let root = ArchitectureMapTests.root
    static let listed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("DocentKit-API.txt")
    /// What `import DocentKit` brings: its own declarations and its re-exported modules'.
    static let modules = ["DocentKit", "ContentTypes", "DocumentModel", "Documents", "UniformTypeIdentifiers"]

    @Test("The public declarations of DocentKit and what it re-exports are the checked-in list")
    func surfaceIsTheList() throws {
        let symbols = try Self.modules.flatMap { try Self.publicSymbols(of: $0) }
        let current = Set(symbols).sorted()
        #expect(current.count > 100, "read only \(current.count) symbols")
        if ProcessInfo.processInfo.environment["DOCENT_WRITE_API"] == "1" {
            try (current.joined(separator: "\n") + "\n").write(to: Self.listed, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: Self.listed, encoding: .utf8).split(separator: "\n").map(String.init)
        let added = Set(current).subtracting(expected).sorted(), removed = Set(expected).subtracting(current).sorted()
        #expect(added.isEmpty, "public now, not in DocentKit-API.txt (made public on purpose? write the list again):\n\(added.joined(separator: "\n"))")
        #expect(removed.isEmpty, "in DocentKit-API.txt, no longer public (a breaking change):\n\(removed.joined(separator: "\n"))")
        // What must stay hidden: the engine's parsers and tables, the registry's workings.
        for name in ["MagicRules", "Matchlet", "GlobTable", "SharedMIMEInfo", "RegistryCache", "DeclarationFile", "XMLRoot", "EXIFTags",
                     "ManPage", "ExternalViewer", "Detached", "DocumentRegistry", "DocumentSelection", "ReaderChoice", "OpenedDocument"] {
            #expect(!current.contains { $0.split(separator: "\t")[2] == name }, "\(name) is public")
        }
    }

    @Test("Every public declaration of DocentKit and what it re-exports has a doc comment")
    func everyDeclarationDocumented() throws {
        let undocumented = try Self.modules.flatMap { try Self.publicSymbols(of: $0, undocumentedOnly: true) }
        #expect(undocumented.isEmpty, "public without a doc comment:\n\(undocumented.sorted().joined(separator: "\n"))")
    }

    /// "module<TAB>kind<TAB>path<TAB>declaration" for each public symbol of `module` (and of
    /// its extensions to other modules' types); with `undocumentedOnly`, those written in the
    /// sources without a doc comment (what the compiler makes — `hashValue`, `==` — has none
    /// to have, and a protocol requirement's implementation inherits the requirement's).
    static func publicSymbols(of module: String, undocumentedOnly: Bool = false) throws -> [String] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("docent-symbols-\(UUID().uuidString)-\(module)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        try extract(module, to: output)
        var lines: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path) where file.hasSuffix(".symbols.json") {
            let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent(file))) as? [String: Any]
            for symbol in graph?["symbols"] as? [[String: Any]] ?? [] {
                guard let access = symbol["accessLevel"] as? String, access == "public" || access == "open",
                      let path = symbol["pathComponents"] as? [String],
                      let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String else { continue }
                if undocumentedOnly, symbol["docComment"] != nil || symbol["location"] == nil { continue }
                let fragments = (symbol["declarationFragments"] as? [[String: Any]] ?? []).compactMap { $0["spelling"] as? String }
                let declaration = fragments.joined().split(whereSeparator: \.isNewline).joined(separator: " ")
                lines.append([module, kind.replacingOccurrences(of: "swift.", with: ""), path.joined(separator: "."), declaration]
                    .joined(separator: "\t"))
            }
        }
        return lines
    }

    /// Runs `swift symbolgraph-extract` over the module as this test run built it.
    static func extract(_ module: String, to output: URL) throws {
        let build = try buildDirectory()
        var scratch = build
        while !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("checkouts").path), scratch.path != "/" {
            scratch.deleteLastPathComponent()
        }
        // The C modules DocentKit's imports reach: the build's own module maps, the repository's
        // and its dependencies' (SQLCipher's stands in for GRDB's SQLite module: left out).
        var maps = try FileManager.default.contentsOfDirectory(atPath: build.path).filter { $0.hasSuffix(".build") }
            .map { build.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
        maps += try files(named: "module.modulemap", under: [root.appendingPathComponent("Sources"), scratch.appendingPathComponent("checkouts")])
            .filter { !$0.contains("SQLCipher") && !$0.contains("/Benchmarks/") && !$0.contains("/Tests/") }
        maps = maps.filter { FileManager.default.fileExists(atPath: $0) }
        var includes = maps.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        // The system libraries' headers, where Package.swift's pkgConfig entries say.
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let packages = manifest.matches(of: /pkgConfig: "([^"]+)"/).map { String($0.output.1) }
        includes += try run(["pkg-config", "--cflags-only-I"] + packages).split(separator: " ")
            .map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2)) }.filter { !$0.isEmpty }
        var arguments = ["swift", "symbolgraph-extract", "-module-name", module, "-target", "x86_64-unknown-linux-gnu",
                         "-I", build.appendingPathComponent("Modules").path, "-minimum-access-level", "public", "-output-dir", output.path]
        arguments += maps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] } + includes.flatMap { ["-Xcc", "-I" + $0] }
        _ = try run(arguments)
    }

    /// The directory of the running test binary: the build's products and `Modules/`.
    static func buildDirectory() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        guard directory.path != "/" else { throw SurfaceError("no Modules directory above \(CommandLine.arguments[0])") }
        return directory
    }

    static func files(named name: String, under roots: [URL]) throws -> [String] {
        roots.flatMap { root -> [String] in
            guard let walk = FileManager.default.enumerator(atPath: root.path) else { return [] }
            return walk.compactMap { $0 as? String }.filter { $0.hasSuffix("/" + name) || $0 == name }.map { root.appendingPathComponent($0).path }
        }
    }

    /// Standard output of a command; its standard error in the error when it fails.
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("docent-surface-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SurfaceError("\(arguments[0...1].joined(separator: " ")) failed: " + ((try? String(contentsOf: errors, encoding: .utf8)) ?? ""))
        }
        return String(decoding: data, as: UTF8.self)
    }

    struct SurfaceError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
