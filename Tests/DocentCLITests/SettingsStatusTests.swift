import Foundation
import Testing
import TestSupport

/// The user's config.yaml (exclusions, limits) and `docent status`, on the built binary.
@Suite("Settings, exclusions and docent status, end to end")
struct SettingsStatusTests {
    let dir: TemporaryDirectory
    var root: String { dir.path + "/tree" }
    var env: [String: String] { ["XDG_DATA_HOME": dir.path + "/data", "DOCENT_CONFIG_DIR": dir.path + "/config"] }

    init() throws {
        dir = try TemporaryDirectory()
        try dir.write("tree/notes/plan.md", "# Plan\n\nThe kettle boils.\n")
        try dir.write("tree/notes/run.log", "kettle log line\n")
        try dir.write("tree/generated/out.txt", "kettle generated\n")
        try dir.write("tree/docs/drafts/d.txt", "kettle draft\n")
        try dir.write("tree/docs/final.txt", "kettle final\n")
        try dir.write("tree/.git/HEAD", "kettle in git\n")
        try dir.write("tree/notes/.plan.md.swp", "kettle swap\n")
        try dir.write("tree/bad.json", "{\"kettle\": [1, 2\n")
    }

    func config(_ yaml: String) throws {
        try dir.write("config/config.yaml", yaml)
    }

    func indexed() throws -> [String] {
        let r = try Docent.run(["search", "kettle", "--files", "--limit", "100"], environment: env)
        return r.stdout.split(separator: "\n").map { String($0.dropFirst(root.count + 1)) }.sorted()
    }

    @Test("Exclusions: shipped defaults, the user's name and path globs, and dropping the defaults")
    func exclusions() throws {
        var r = try Docent.run(["index", root], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        // .git and editor swap files are excluded by Config/docent.yaml.
        #expect(try indexed() == ["bad.json", "docs/drafts/d.txt", "docs/final.txt", "generated/out.txt", "notes/plan.md", "notes/run.log"])

        try config("exclude:\n  - \"*.log\"\n  - generated\n  - \"*/tree/docs/drafts\"\n")
        r = try Docent.run(["index", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        // Rows under what is now excluded leave the index.
        #expect(r.jsonLines.first?["removed"] as? Int == 3)
        #expect(try indexed() == ["bad.json", "docs/final.txt", "notes/plan.md"])

        try config("excludeDefaults: false\nexclude: [\"*.log\"]\n")
        r = try Docent.run(["index"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try indexed() == [".git/HEAD", "bad.json", "docs/drafts/d.txt", "docs/final.txt", "generated/out.txt",
                                  "notes/.plan.md.swp", "notes/plan.md"])
    }

    @Test("Roots listed in config.yaml are indexed when none are given")
    func configuredRoots() throws {
        try config("roots: [\"\(root)/notes\"]\n")
        let r = try Docent.run(["index", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try indexed() == ["notes/plan.md", "notes/run.log"])
    }

    @Test("The text budget from config.yaml bounds what is stored per file")
    func textBudget() throws {
        try dir.write("tree/long.txt", String(repeating: "filler ", count: 2000) + "teapot\n")
        try config("limits:\n  textBytes: 4096\n")
        _ = try Docent.run(["index", root], environment: env)
        // The head of the text is stored, the word past the budget is not.
        #expect(try Docent.run(["search", "filler"], environment: env).status == 0)
        #expect(try Docent.run(["search", "teapot"], environment: env).status == 1)
        try config("limits:\n  textBytes: 65536\n")
        try dir.write("tree/long2.txt", String(repeating: "filler ", count: 2000) + "teapot\n")
        _ = try Docent.run(["index", root], environment: env)
        #expect(try Docent.run(["search", "teapot", "--files"], environment: env).stdout == root + "/long2.txt\n")
    }

    @Test("A broken config.yaml is a clear error, exit 2", arguments: [
        ("colour: red\n", "unknown setting `colour`"),
        ("limits:\n  textBytes: -3\n", "limits.textBytes"),
        ("exclude: \"*.log\"\n", "`exclude` must be a list"),
        ("roots: [\n", "not valid YAML"),
        ("index: mysql://db/docent\n", "not a postgresql:// address"),
        ("index: postgresql://me:secret@db/docent\n", "~/.pgpass"),
        ("host: two words\n", "`host` must be a name"),
        ("markers: [a/b]\n", "`markers`: `a/b` is not a file name"),
        ("poll:\n  interval: 0\n", "`poll.interval` must be a positive number"),
        ("poll:\n  paths: [relative]\n", "not an absolute path"),
        ("poll:\n  every: 5\n", "unknown key `every` in `poll`"),
        ("battery: maybe\n", "`battery` must be defer or run"),
        ("opener: []\n", "`opener` must be a command"),
    ])
    func brokenConfig(yaml: String, message: String) throws {
        try config(yaml)
        let r = try Docent.run(["index", root], environment: env)
        #expect(r.status == 2)
        #expect(r.stderr.contains("config.yaml") && r.stderr.contains(message), "\(r.stderr)")
    }

    @Test("status: roots, counts by type, size, last indexed, errors by kind; --errors; --json")
    func status() throws {
        try FileManager.default.copyItem(atPath: "/usr/share/doc/libpng-dev/examples/pngtest.png", toPath: root + "/pic.png")
        try dir.write("tree/src/a.py", "print('kettle')\n")
        let indexRun = try Docent.run(["index", root], environment: env)
        #expect(indexRun.stderr.isEmpty, "no progress display on a pipe: \(indexRun.stderr)")

        let json = try #require(try Docent.run(["status", "--json", "--errors"], environment: env).jsonLines.first)
        #expect(json["files"] as? Int == 8)
        #expect((json["indexBytes"] as? Int ?? 0) > 0)
        let types = try #require(json["types"] as? [String: Int])
        #expect(types == ["text": 6, "source": 1, "image": 1])
        #expect(json["errors"] as? [String: Int] == ["invalid-json": 1])
        let roots = try #require(json["roots"] as? [[String: Any]])
        #expect(roots.count == 1 && roots[0]["path"] as? String == root && roots[0]["files"] as? Int == 8)
        #expect(roots[0]["lastIndexed"] is String)
        let failed = try #require(json["filesWithErrors"] as? [[String: Any]])
        #expect(failed.count == 1 && failed[0]["path"] as? String == root + "/bad.json")
        #expect((failed[0]["message"] as? String)?.contains("line 2") == true)

        let text = try Docent.run(["status"], environment: env)
        #expect(text.status == 0)
        #expect(text.stdout.contains(root + "  8 files, 1 errors, indexed just now"))
        #expect(text.stdout.contains("invalid-json  1"))
        let errors = try Docent.run(["status", "--errors"], environment: env)
        #expect(errors.stdout.hasPrefix(root + "/bad.json: invalid-json: invalid JSON at line 2"))
    }

    // Regression: `docent watch` and a `docent status` opening a brand-new index together both
    // ran the first migration; the loser failed with "table roots already exists" and the
    // watcher exited.
    @Test("Many processes opening a new index at once all succeed")
    func concurrentFirstOpen() throws {
        for round in 0..<6 {
            let processes = try (0..<8).map { _ -> (Process, Pipe) in
                let process = Process()
                process.executableURL = Docent.binary
                process.arguments = ["status", "--json"]
                process.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": dir.path + "/race\(round)"]) { $1 }
                let err = Pipe()
                process.standardOutput = FileHandle.nullDevice
                process.standardError = err
                try process.run()
                return (process, err)
            }
            for (process, err) in processes {
                let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(message)")
            }
        }
    }
}
