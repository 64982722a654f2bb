import Foundation
import Testing
import TestSupport

/// External viewers from config.yaml: a command that makes a type searchable, and commands
/// that fail, hang or flood, each an error row in a run that goes on.
@Suite("External viewers declared in config.yaml", .serialized)
final class ExternalViewerTests: FormatFixture {
    var config: String { dir.path + "/config" }
    var configured: [String: String] { env.merging(["DOCENT_CONFIG_DIR": config]) { $1 } }

    override init() throws {
        try super.init()
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        // A format of notes stored in base64: text, but nothing in Docent decodes it.
        try """
            - identifier: com.example.b64note
              conformsTo: [public.plain-text]
              description: base64 note
              extensions: [b64note]
            - identifier: com.example.fails
              conformsTo: [public.plain-text]
              extensions: [fails]
            - identifier: com.example.slow
              conformsTo: [public.plain-text]
              extensions: [slow]
            - identifier: com.example.floods
              conformsTo: [public.plain-text]
              extensions: [floods]
            """.write(toFile: config + "/content-types.yaml", atomically: true, encoding: .utf8)
        try Data("meeting about the wombat migration\n".utf8).base64EncodedString()
            .write(toFile: root + "/plan.b64note", atomically: true, encoding: .utf8)
    }

    func configure(_ yaml: String) throws {
        try yaml.write(toFile: config + "/config.yaml", atomically: true, encoding: .utf8)
    }

    func docent(_ arguments: [String]) throws -> Docent.Result { try Docent.run(arguments, environment: configured) }

    @Test("A viewer makes a type searchable and previewed; changing its command re-reads its files")
    func searchable() throws {
        #expect(try docent(["index", root]).status == 0)
        #expect(try docent(["search", "wombat", "--files"]).stdout.isEmpty, "not searchable without a viewer (its base64 is)")

        try configure("""
            viewers:
              - types: [com.example.b64note]
                command: [base64, -d]
            """)
        let r = try docent(["index", root])
        #expect(r.status == 0 && r.stdout.contains("1 indexed"), "\(r.stdout) \(r.stderr)")
        #expect(try docent(["search", "wombat", "--files"]).stdout == root + "/plan.b64note\n")
        #expect(try docent(["info", root + "/plan.b64note"]).stdout.contains("viewer: base64 -d"))
        let preview = try docent(["preview", root + "/plan.b64note"]).stdout
        #expect(preview.contains("meeting about the wombat migration"), "\(preview)")

        // The same viewer by extension, its output read as Markdown: a new command, read again.
        try configure("""
            viewers:
              - types: [b64note]
                command: [sh, -c, "printf '# Decoded\\\\n\\\\n'; base64 -d"]
                output: markdown
            """)
        let again = try docent(["index", root])
        #expect(again.stdout.contains("1 indexed"), "\(again.stdout) \(again.stderr)")
        let json = try docent(["preview", root + "/plan.b64note", "--format", "json"]).stdout
        #expect(json.contains(#""Decoded""#), "\(json)")
        #expect(try docent(["search", "title:decoded wombat", "--files"]).stdout == root + "/plan.b64note\n")
        #expect(try docent(["index", root]).stdout.contains("0 indexed"))
    }

    @Test("A command that fails, hangs or floods: an error row each, the run exits 0, nothing left running")
    func failures() throws {
        try "x".write(toFile: root + "/a.fails", atomically: true, encoding: .utf8)
        try "x".write(toFile: root + "/b.slow", atomically: true, encoding: .utf8)
        try "x".write(toFile: root + "/c.floods", atomically: true, encoding: .utf8)
        let marker = "docent-viewer-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try configure("""
            viewers:
              - types: [fails]
                command: [sh, -c, "echo broken input >&2; exit 3"]
              - types: [slow]
                command: [sh, -c, "sleep 600 # \(marker)"]
                seconds: 1
              - types: [floods]
                command: ["yes"]
                outputBytes: 100000
              - types: [com.example.b64note]
                command: [no-such-command-for-docent]
            """)
        let started = Date()
        let r = try docent(["index", root])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 20 * deadlineFactor, "the hanging command held the run")
        let status = try docent(["status", "--errors", "--json"]).jsonLines.first ?? [:]
        var messages: [String: String] = [:]
        for row in status["filesWithErrors"] as? [[String: Any]] ?? [] {
            if let path = row["path"] as? String { messages[(path as NSString).lastPathComponent] = "\(row["message"] ?? "")" }
        }
        #expect(messages["a.fails"]?.contains("exited with status 3: broken input") == true, "\(messages)")
        #expect(messages["b.slow"]?.contains("did not finish in 1 s") == true, "\(messages)")
        #expect(messages["c.floods"]?.contains("wrote more than 100000 bytes") == true, "\(messages)")
        #expect(messages["plan.b64note"]?.contains("cannot run no-such-command-for-docent") == true, "\(messages)")
        let (_, left) = try runTool("/usr/bin/pgrep", ["-f", marker])
        #expect(left.isEmpty, "the slow command's process group was not killed")
    }
}
