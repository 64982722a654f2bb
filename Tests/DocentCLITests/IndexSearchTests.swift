import Foundation
import Testing
import TestSupport

/// `docent index` and `docent search` on temporary trees, with the index in a temporary XDG_DATA_HOME.
@Suite("docent index and docent search, end to end")
struct IndexSearchTests {
    let dir: TemporaryDirectory
    let env: [String: String]
    var root: String { dir.path + "/tree" }

    init() throws {
        dir = try TemporaryDirectory()
        env = ["XDG_DATA_HOME": dir.path + "/data"]
        try dir.write("tree/notes/plan.md", "# Migration plan\n\nWe are running the migration on Monday.\n")
        try dir.write("tree/src/parser.swift", "func parseHTTPResponse() { let max_retry_count = 3 }\n")
        try dir.write("tree/src/util.py", "import os.path\nprint(os.path.join('tea', 'cup'))\n")
        try dir.write("tree/data/prices.csv", "item,price\ntea,3\ncoffee,4\n")
        try dir.write("tree/big.txt", String(repeating: "filler words here\n", count: 2000) + "needle at the end\n")
        try dir.write("tree/.git/objects/secret.txt", "needle inside version control\n")
        try FileManager.default.copyItem(atPath: "/usr/share/doc/libpng-dev/examples/pngtest.png", toPath: root + "/pic.png")
    }

    /// The environment for `store` (PostgreSQL: a database of the test's own).
    func environment(_ store: TestStore) throws -> [String: String] { try store.environment(env, directory: dir.path) }

    func index(_ extra: [String] = [], env: [String: String]? = nil) throws -> [String: Any] {
        let r = try Docent.run(["index", "--json"] + extra, environment: env ?? self.env)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(r.jsonLines.first)
    }

    func search(_ query: String, _ extra: [String] = [], env: [String: String]? = nil) throws -> (status: Int32, paths: [String]) {
        let r = try Docent.run(["search", query, "--files", "--limit", "100"] + extra, environment: env ?? self.env)
        let paths = r.stdout.split(separator: "\n").map { String($0.dropFirst(root.count + 1)) }
        return (r.status, paths.sorted())
    }

    /// `docent` parses plain search command lines itself and opens the index with one
    /// connection; `docent-engine` parses with ArgumentParser and opens a pool. Same answers.
    @Test("docent's own search path answers as ArgumentParser's does: hits, exit statuses and messages")
    func plainSearchPath() throws {
        _ = try index([root])
        let engine = Docent.binary.deletingLastPathComponent().appendingPathComponent("docent-engine")
        let indexPath = dir.path + "/data/docent/index.sqlite"
        let forms: [[String]] = [
            ["tea"], ["tea", "--limit", "1"], ["--limit=1", "tea"], ["tea", "-coffee"], ["migration", "--json"], ["-0", "tea"],
            ["tea", "--files"], ["--index", indexPath, "tea"], ["--index=" + indexPath, "tea", "--print0"], ["tea", "type:csv"],
            ["nothingmatchesthis"], ["tea", "--limit", "0"], ["tea", "--limit"], ["(tea"], ["tea", "type:nosuchtype"], ["--bogus", "tea"],
            ["--index", dir.path + "/missing.sqlite", "tea"], ["--json"], ["tea", "--", "-x"],
        ]
        for form in forms {
            let front = try Docent.run(["search"] + form, environment: env)
            let viaEngine = try Docent.run(["search"] + form, environment: env, executable: engine)
            #expect(front.status == viaEngine.status && front.stdout == viaEngine.stdout && front.stderr == viaEngine.stderr,
                    "\(form): \(front.status) \(front.stdout) \(front.stderr) / \(viaEngine.status) \(viaEngine.stdout) \(viaEngine.stderr)")
        }
        #expect(try Docent.run(["search", "tea", "--limit", "1", "--files"], environment: env).stdout.split(separator: "\n").count == 1)
        #expect(try Docent.run(["search", "tea", "--limit", "0"], environment: env).status == 2)
        // Types in people's words; the identifier in --json.
        let text = try Docent.run(["search", "tea", "type:csv"], environment: env).stdout
        #expect(text.contains("\n  comma-separated values · score ") && !text.contains("public.comma-separated-values-text"), "\(text)")
        #expect(try Docent.run(["search", "tea", "type:csv", "--json"], environment: env).stdout.contains("public.comma-separated-values-text"))
    }

    /// libxml2 sends a few messages (an entity redeclared, a malformed encoding declaration)
    /// to its generic error channel whatever the parse options: they must not reach the terminal.
    @Test("Malformed XML and HTML are indexed without a word from libxml2 on standard error", arguments: TestStore.allCases)
    func libxmlQuiet(store: TestStore) throws {
        let env = try environment(store)
        try dir.write("tree/entities.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE note [<!ENTITY lt \"<\"><!ENTITY amp \"&\">]>\n<note>quokka &lt; wombat</note>\n")
        try dir.write("tree/entities.html", "<!DOCTYPE html [<!ENTITY lt \"<\">]><html><body><p>quokka page &lt;<b></i></p>\n")
        try dir.write("tree/encoding.xml", "<?xml version=\"1.0\" encoding=\"no-such-encoding\"?>\n<note>quokka encoded</note>\n")
        let r = try Docent.run(["index", "--json", root], environment: env)
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(try search("quokka", env: env).paths.contains("entities.html"))
    }

    @Test("New classification rules (a user's declaration, an upgraded Docent) retype the files they concern, and only those")
    func reclassification() throws {
        var env = self.env
        env["DOCENT_CONFIG_DIR"] = dir.path + "/config"
        try dir.write("tree/menu.recipe", "soup, bread, cheese\n")
        func run(_ arguments: [String]) throws -> [String: Any] {
            let r = try Docent.run(arguments, environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(r.jsonLines.first)
        }
        func type(_ name: String) throws -> String? {
            let r = try Docent.run(["search", "name:" + name, "--json"], environment: env)
            return r.jsonLines.first?["contentType"] as? String
        }
        _ = try run(["index", "--json", root])
        #expect(try type("menu.recipe") != "com.example.recipe")
        #expect(try run(["index", "--json"])["indexed"] as? Int == 0, "same rules: nothing read again")

        // The user declares the type: the next run types the file anew, and reads only it.
        try dir.write("config/content-types.yaml", """
            - identifier: com.example.recipe
              conformsTo: [public.plain-text]
              extensions: [recipe]
            """)
        #expect(try run(["index", "--json"])["indexed"] as? Int == 1)
        #expect(try type("menu.recipe") == "com.example.recipe")

        // An index typed by rules nobody recorded (an index from before): classified again,
        // nothing read again when no type changes.
        let database = dir.path + "/data/docent/index.sqlite"
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        sqlite.arguments = ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"DELETE FROM meta WHERE key='classifier'\"); c.commit()", database]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        #expect(try run(["index", "--json"])["indexed"] as? Int == 0)
    }

    @Test("Large files: a byte-identical copy of one just read is not read again; copies under another name, or same-size files with other bytes, are read for themselves")
    func identicalLargeFiles() throws {
        // Over the 2 MiB from which files are read one at a time and copies looked for.
        let filler = String(repeating: "plain filler line of the large file\n", count: 70_000)
        try dir.write("tree/large/a/notes.txt", filler + "alphaword\n")
        try dir.write("tree/large/b/notes.txt", filler + "alphaword\n")    // a copy: the same name
        try dir.write("tree/large/c/notes.txt", filler + "gammaword\n")    // same name and size, other bytes
        try dir.write("tree/large/d/renamed.txt", filler + "alphaword\n")  // a copy under another name
        let summary = try index([root + "/large"])
        #expect(summary["indexed"] as? Int == 4)
        // Plain text's reader may look at the name, so only the same-named copy is taken as one.
        #expect(summary["identicalCopies"] as? Int == 1)
        #expect(try search("alphaword").paths == ["large/a/notes.txt", "large/b/notes.txt", "large/d/renamed.txt"])
        #expect(try search("gammaword").paths == ["large/c/notes.txt"])
        // A copy edited after it was read is read again for itself.
        try dir.write("tree/large/b/notes.txt", filler + "betaword!\n")
        #expect(try index()["indexed"] as? Int == 1)
        #expect(try search("betaword").paths == ["large/b/notes.txt"])
        #expect(try search("alphaword").paths == ["large/a/notes.txt", "large/d/renamed.txt"])
    }

    @Test("A large PDF copied under another name, or built again with another file identifier, is read once; one with other text is read")
    func identicalLargePDFs() throws {
        let pdf = Self.pdf(pages: 120, word: "quokkaword", id: "0123456789ABCDEF")
        #expect(pdf.count > 2 << 20)
        try dir.write("tree/pdfs/manual.pdf", bytes: pdf)
        try dir.write("tree/pdfs/old/manual-copy.pdf", bytes: pdf)
        try dir.write("tree/pdfs/full/manual-build.pdf", bytes: Self.pdf(pages: 120, word: "quokkaword", id: "FEDCBA9876543210"))
        try dir.write("tree/pdfs/other/manual.pdf", bytes: Self.pdf(pages: 120, word: "wombatword", id: "0123456789ABCDEF"))
        let summary = try index([root + "/pdfs"])
        #expect(summary["indexed"] as? Int == 4)
        #expect(summary["errors"] as? Int == 0)
        #expect(summary["identicalCopies"] as? Int == 2)
        #expect(try search("quokkaword").paths == ["pdfs/full/manual-build.pdf", "pdfs/manual.pdf", "pdfs/old/manual-copy.pdf"])
        #expect(try search("wombatword").paths == ["pdfs/other/manual.pdf"])
    }

    static func pdf(pages: Int, word: String, id: String) -> [UInt8] { SamplePDF.make(pages: pages, word: word, id: id) }

    @Test("Index, change the tree, re-index: the index follows the filesystem", arguments: TestStore.allCases)
    func followsTheTree(store: TestStore) throws {
        let env = try environment(store)
        func index(_ extra: [String] = []) throws -> [String: Any] { try self.index(extra, env: env) }
        func search(_ query: String) throws -> (status: Int32, paths: [String]) { try self.search(query, env: env) }
        var summary = try index([root])
        #expect(summary["files"] as? Int == 6)  // .git is not entered
        #expect(summary["indexed"] as? Int == 6)
        #expect(try search("needle").paths == ["big.txt"])

        summary = try index()  // the remembered root, nothing changed
        #expect(summary["unchanged"] as? Int == 6)
        #expect(summary["indexed"] as? Int == 0)

        try dir.write("tree/notes/new.txt", "a fresh kettle")
        try dir.write("tree/notes/plan.md", "# Plan\n\nPostponed to Friday, longer text now.\n")
        try FileManager.default.removeItem(atPath: root + "/data/prices.csv")
        try FileManager.default.moveItem(atPath: root + "/src/util.py", toPath: root + "/src/helpers.py")
        summary = try index()
        #expect(summary["indexed"] as? Int == 2)
        #expect(summary["moved"] as? Int == 1)
        #expect(summary["removed"] as? Int == 1)
        #expect(try search("kettle").paths == ["notes/new.txt"])
        #expect(try search("friday").paths == ["notes/plan.md"])
        #expect(try search("monday").status == 1)
        #expect(try search("coffee").status == 1)
        #expect(try search("join").paths == ["src/helpers.py"])
    }

    @Test("Every query form finds what it should", arguments: TestStore.allCases, [
        ("migration", ["notes/plan.md"]),
        ("run", ["notes/plan.md"]),
        ("\"migration on monday\"", ["notes/plan.md"]),
        ("migr*", ["notes/plan.md"]),
        ("tea OR migration", ["data/prices.csv", "notes/plan.md", "src/util.py"]),
        ("tea -coffee", ["src/util.py"]),
        ("tea NOT cup", ["data/prices.csv"]),
        ("(monday OR cup) tea", ["src/util.py"]),
        ("HTTP", ["src/parser.swift"]),
        ("max_retry_count", ["src/parser.swift"]),
        ("os.path.join", ["src/util.py"]),
        ("type:source", ["src/parser.swift", "src/util.py"]),
        ("type:public.text tea", ["data/prices.csv", "src/util.py"]),
        ("type:public.plain-text tea", ["src/util.py"]),  // CSV is delimited text, not plain text (Apple's tree)
        ("type:image", ["pic.png"]),
        ("-type:text", ["pic.png"]),
        ("ext:py", ["src/util.py"]),
        ("name:p*", ["data/prices.csv", "notes/plan.md", "pic.png", "src/parser.swift"]),
        ("in:ROOT/src", ["src/parser.swift", "src/util.py"]),
        ("size:>10k", ["big.txt"]),
        ("modified:<1d ext:csv", ["data/prices.csv"]),
        ("modified:>2100-01-01", []),
        ("title:migration", ["notes/plan.md"]),
        ("title:migration OR coffee", ["data/prices.csv", "notes/plan.md"]),
        ("(title:plan OR cup) -coffee", ["notes/plan.md", "src/util.py"]),
        ("migration -title:migration", []),
        ("-needle ext:txt", []),
        ("host:\(LocalHostName.name) needle", ["big.txt"]),
        ("host:elsewhere needle", []),
    ] as [(String, [String])])
    func queries(store: TestStore, queryCase: (String, [String])) throws {
        let (query, expected) = queryCase
        let env = try environment(store)
        _ = try index([root], env: env)
        let result = try Docent.run(["search", query.replacingOccurrences(of: "ROOT", with: root), "--files", "--limit", "100"],
                                    environment: env)
        let paths = result.stdout.split(separator: "\n").map { String($0.dropFirst(root.count + 1)) }.sorted()
        #expect(paths == expected, "\(query): \(result.stderr)")
        #expect(result.status == (expected.isEmpty ? 1 : 0))
    }

    @Test("Malformed queries and bad input exit 2 with a clear message", arguments: TestStore.allCases, [
        ("\"unbalanced", "unbalanced quote"), ("(tea", "'(' is not closed"), ("colour:red", "unknown field"),
        ("size:huge", "cannot read 'huge'"), ("modified:>someday", "cannot read"), ("type:nonsense", "unknown type 'nonsense'"),
    ] as [(String, String)])
    func malformed(store: TestStore, queryCase: (String, String)) throws {
        let (query, message) = queryCase
        let env = try environment(store)
        _ = try index([root], env: env)
        let r = try Docent.run(["search", query], environment: env)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!r.stderr.contains("SQLITE") && !r.stderr.contains("fts5") && !r.stderr.contains("SQLSTATE"))
    }

    @Test("Ranking beyond BM25, alike on both stores: named as the query, titled with it, folders' names, headings, man's section order, translations and change logs below", arguments: TestStore.allCases)
    func refinedRanking(store: TestStore) throws {
        let env = try environment(store)
        let man = { (name: String, summary: String, body: String) in ".TH \(name.uppercased()) 1\n.SH NAME\n\(name) \\- \(summary)\n.SH DESCRIPTION\n\(body)\n" }
        // A page named as the query, against notes that say its words more often.
        try dir.write("rank/man/man1/tool-rebase.1", man("tool-rebase", "rewrite a branch", "Moves commits onto another base."))
        try dir.write("rank/notes/meeting.txt", "tool rebase tool rebase: we talked about the tool and rebase, tool rebase again\n")
        // The same page in German, shorter (BM25 prefers it), below the user's language.
        try dir.write("rank/man/de/man1/seek.1", man("seek", "Muster suchen", "seek muster"))
        try dir.write("rank/man/man1/seek.1", man("seek", "search for a pattern", "seek searches the named files for lines that match a pattern, and prints them"))
        // A change log that says the word most, against the guide titled with it.
        try dir.write("rank/widget/changelog", String(repeating: "Fixed the widget. Widget again. ", count: 40))
        try dir.write("rank/widget/guide.md", "# Widget guide\n\nHow to build a widget from parts, and how the widget is tested.\n" + String(repeating: "More words about parts and tests. ", count: 30))
        // A question in other words than its answer's: the page whose title says most of it
        // (never "disk"), against a log that holds every word, scattered.
        try dir.write("rank/man/man1/dfree.1", man("dfree", "report file system space usage", "Prints the space used and free on each mounted file system."))
        try dir.write("rank/notes/log.txt", "show the log. " + String(repeating: "Lines about other things entirely. ", count: 30)
            + "disk was replaced; " + String(repeating: "More unrelated lines here. ", count: 30) + "space usage of file systems went up.\n")
        // A page without a question's small words ("by").
        try dir.write("rank/man/man8/blockid.8", man("blockid", "locate block device attributes", "Lists block devices with their UUID and label."))
        // Words that head a section, against the same words in a paragraph of a page alike.
        try dir.write("rank/pages/a.html", "<html><head><title>Workshop page one</title></head><body><h1>Machine notes</h1><p>Lathe and mill.</p><h2>Spindle tuning</h2><p>Adjust the belt.</p></body></html>")
        try dir.write("rank/pages/b.html", "<html><head><title>Workshop page two</title></head><body><h1>Machine notes</h1><p>Lathe and mill.</p><p>Spindle tuning, then</p><p>adjust the belt.</p></body></html>")
        // A project named only by its folder, beside the same text elsewhere.
        try dir.write("rank/quillplot/docs/scales.txt", "Axis scaling: set a logarithmic scale on an axis.\n")
        try dir.write("rank/notes/scales.txt", "Axis scaling: set a logarithmic scale on an axis.\n")
        // A question whose words are in a page's title and folder only, beside the same page elsewhere.
        try dir.write("rank/quillplot/docs/bars.html", "<html><head><title>Histograms</title></head><body><p>Bars of counts.</p></body></html>")
        try dir.write("rank/notes/bars.html", "<html><head><title>Histograms</title></head><body><p>Bars of counts, again.</p></body></html>")
        try dir.write("rank/notes/quillplot.txt", "Notes. " + String(repeating: "Lines about other things entirely. ", count: 30)
            + "To draw a histogram in quillplot, see its pages.\n")
        // A command's page and a system call's of the same words, the call's shorter (BM25
        // prefers it): the command first, as `man` orders them.
        try dir.write("rank/man/man2/fsattach.2", man("fsattach", "attach filesystem", "Attaches a filesystem."))
        try dir.write("rank/man/man8/fsattach.8", man("fsattach", "attach a filesystem", "fsattach attaches the filesystem found on a device to a directory of the tree."))
        // A page named with a dot, asked for by that name, against notes that say its words more.
        try dir.write("rank/man/man5/unitd.service.5", man("unitd.service", "unit configuration", "Options of a unit."))
        try dir.write("rank/notes/unitd service notes.txt", "unitd service: the unitd service starts; unitd service again, unitd service\n")
        // A dotted name: its module's page, against a test that says it more often.
        try dir.write("rank/lib/quuxlib.html", "<html><head><title>quuxlib — tools for quux</title></head><body>"
            + "<dl><dt>quuxlib.frobnicate(value)</dt><dd>Frobnicates the value: quuxlib.frobnicate(1) is 2.</dd>"
            + "<dt>quuxlib.unfrob(value)</dt><dd>The inverse of quuxlib.frobnicate.</dd></dl><p>"
            + String(repeating: "The library holds many tools for working with quux data. ", count: 20) + "</p></body></html>")
        try dir.write("rank/tests/test_frob.py", "import quuxlib\n" + (1...40).map { "assert other_helper(\($0)) == \($0 + 1)\n" }.joined()
            + (1...4).map { "assert quuxlib.frobnicate(\($0)) == \($0 + 1)\n" }.joined())
        // A page that writes "filesystem", asked for as two words ("file system" elsewhere).
        try dir.write("rank/man/man8/mountfs.8", man("mountfs", "mount a filesystem", "mountfs makes the filesystem on a device part of the tree."))
        _ = try index([dir.path + "/rank"], env: env)
        func ranked(_ query: String) throws -> [String] {
            let output = try Docent.run(["search", "--files", "--limit", "3", "--", query], environment: env).stdout
            return output.split(separator: "\n").map { $0.replacingOccurrences(of: dir.path + "/rank/", with: "") }
        }
        func first(_ query: String) throws -> String { try ranked(query).first ?? "" }
        #expect(try first("tool rebase") == "man/man1/tool-rebase.1")
        #expect(try first("seek") == "man/man1/seek.1")
        #expect(try first("widget") == "widget/guide.md")
        #expect(try ranked("show disk space usage of file systems") == ["man/man1/dfree.1", "notes/log.txt"])
        #expect(try first("list block devices by uuid") == "man/man8/blockid.8")
        #expect(try ranked("quillplot logarithmic") == ["quillplot/docs/scales.txt"])
        let histogram = try ranked("quillplot draw a histogram")
        #expect(histogram.contains("quillplot/docs/bars.html") && !histogram.contains("notes/bars.html"), "\(histogram)")
        #expect(try ranked("spindle tuning") == ["pages/a.html", "pages/b.html"])
        #expect(try ranked("attach a filesystem") == ["man/man8/fsattach.8", "man/man2/fsattach.2"])
        #expect(try first("unitd.service") == "man/man5/unitd.service.5")
        let dotted = try ranked("quuxlib.frobnicate")
        #expect(dotted == ["lib/quuxlib.html", "tests/test_frob.py"], "\(dotted)")
        // Words typed apart find the compound the documents write, marked in its snippet.
        #expect(try ranked("mount file system").contains("man/man8/mountfs.8"))
        let compound = try Docent.run(["search", "--limit", "20", "--", "mount file system"], environment: env).stdout
        #expect(compound.contains("[filesystem]"), "\(compound)")
        // A misspelt word matches nothing: no title with the other words stands in for it.
        #expect(try ranked("show dixk space usage of file systems").isEmpty)
        // The translation is still found, after.
        let all = try Docent.run(["search", "seek", "--files"], environment: env).stdout
        #expect(all.contains("man/de/man1/seek.1"))
    }

    @Test("Output forms: text with [marks], JSON lines, NUL-separated paths", arguments: TestStore.allCases)
    func outputForms(store: TestStore) throws {
        let env = try environment(store)
        // A second copy of the plan: one hit, the other place listed with it (not in a list of paths).
        try dir.write("tree/backup/plan.md", "# Migration plan\n\nWe are running the migration on Monday.\n")
        _ = try index([root], env: env)
        let text = try Docent.run(["search", "monday"], environment: env)
        #expect(text.stdout.contains("[Monday]"))
        #expect(text.stdout.contains("\n  Markdown document · score"), "types in people's words")
        #expect(text.stdout.components(separatedBy: "plan.md").count == 3 && text.stdout.contains("\n  the same file also at " + root + "/"))
        let folded = try Docent.run(["search", "monday", "--json"], environment: env).jsonLines
        #expect(folded.count == 1 && (folded.first?["alsoAt"] as? [String])?.count == 1)
        #expect(try Docent.run(["search", "monday", "--files"], environment: env).stdout.split(separator: "\n").count == 2)
        // One document in two typeset forms side by side: one hit, the other form listed with it.
        try dir.write("tree/manual/guide.pdf", String(decoding: SamplePDF.make(pages: 1, word: "quetzalcoatlus"), as: UTF8.self))
        try dir.write("tree/manual/guide-notes.txt", "quetzalcoatlus notes\n")
        try dir.write("tree/manual/guide.ps", "%!PS-Adobe-3.0\n%%Title: quetzalcoatlus guide\n%%EndComments\n")
        _ = try index([root], env: env)
        let forms = try Docent.run(["search", "quetzalcoatlus", "--json"], environment: env).jsonLines
        let leading = forms.filter { ($0["path"] as? String)?.hasPrefix(root + "/manual/guide.p") == true }
        #expect(forms.count == 2 && leading.count == 1, "\(forms)")
        #expect((leading.first?["alsoAs"] as? [String])?.count == 1 && leading.first?["alsoAt"] == nil)
        #expect(try Docent.run(["search", "quetzalcoatlus"], environment: env).stdout.contains("\n  the same document also as " + root + "/manual/guide."))
        #expect(try Docent.run(["search", "quetzalcoatlus", "--files"], environment: env).stdout.split(separator: "\n").count == 3, "a list of paths keeps every file")
        let json = try Docent.run(["search", "monday", "--json"], environment: env)
        let hit = try #require(json.jsonLines.first)
        #expect([root + "/notes/plan.md", root + "/backup/plan.md"].contains(hit["path"] as? String ?? ""))
        #expect(hit["title"] as? String == "Migration plan")
        #expect((hit["snippet"] as? String)?.contains("[Monday]") == true)
        #expect(hit["score"] is Double && hit["contentType"] is String)
        let nul = try Docent.run(["search", "type:source", "-0"], environment: env)
        #expect(nul.stdout.split(separator: "\0").count == 2 && nul.stdout.hasSuffix("\0"))

        let missing = try Docent.run(["search", "tea"], environment: ["XDG_DATA_HOME": dir.path + "/empty"])
        #expect(missing.status == 2 && missing.stderr.contains("docent index"))
        let notDir = try Docent.run(["index", root + "/nope"], environment: env)
        #expect(notDir.status == 2 && notDir.stderr.contains("no such directory"))
    }
}
