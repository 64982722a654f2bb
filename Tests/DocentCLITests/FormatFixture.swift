import Foundation
import Testing
import TestSupport

/// A root to index, its own data and cache directories, and the steps format tests share:
/// run a trusted tool to write a sample, index, search, read error kinds and previews.
class FormatFixture {
    let dir: TemporaryDirectory
    var root: String { dir.path + "/root" }
    var env: [String: String] { ["XDG_DATA_HOME": dir.path + "/data", "XDG_CACHE_HOME": dir.path + "/cache"] }
    static let shippedPDF = "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
    static let python = "/usr/bin/python3"

    init() throws {
        dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func tool(_ executable: String, _ arguments: [String], in directory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory ?? root)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(executable) \(arguments) failed")
    }

    func index(_ extra: [String: String] = [:]) throws -> [String: Any] {
        let result = try Docent.run(["index", root, "--json"], environment: env.merging(extra) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        return result.jsonLines.first ?? [:]
    }

    func search(_ query: String) throws -> [String] {
        let r = try Docent.run(["search", query, "--files", "--limit", "100"], environment: env)
        return r.stdout.split(separator: "\n").map { String($0.dropFirst(root.count + 1)) }.sorted()
    }

    /// path → (error kind, document type) from `docent status --errors --json` and info.
    func errors() throws -> [String: String] {
        let status = try Docent.run(["status", "--errors", "--json"], environment: env).jsonLines.first ?? [:]
        var out: [String: String] = [:]
        for row in status["filesWithErrors"] as? [[String: Any]] ?? [] {
            if let path = row["path"] as? String { out[String(path.dropFirst(root.count + 1))] = row["kind"] as? String }
        }
        return out
    }

    func preview(_ relative: String) throws -> [String: Any] {
        try Docent.run(["preview", root + "/" + relative, "--format", "json"], environment: env).jsonLines.first ?? [:]
    }

    func field(_ preview: [String: Any], _ key: String) -> String? {
        (preview["metadata"] as? [[String: Any]])?.first { $0["key"] as? String == key }.map { "\($0["value"]!)" }
    }
}
