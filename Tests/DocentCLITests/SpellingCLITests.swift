import Foundation
import Testing
import TestSupport

/// `docent search recieve` on a tree that says "receive": did you mean, and --fuzzy.
@Suite("docent search: did you mean, --fuzzy")
struct SpellingCLITests {
    let dir: TemporaryDirectory
    let env: [String: String]
    var root: String { dir.path + "/tree" }

    init() throws {
        dir = try TemporaryDirectory()
        env = ["XDG_DATA_HOME": dir.path + "/data"]
        try dir.write("tree/parcel.txt", "Please receive the parcel at the door.\n")
        try dir.write("tree/other.txt", "Nothing to see.\n")
        #expect(try Docent.run(["index", root], environment: env).status == 0)
    }

    @Test("A misspelt word: the JSON object says what it means and, nothing matching the word, what the suggestion finds; a pipe of paths gets paths only")
    func suggestion() throws {
        let json = try Docent.run(["search", "recieve", "--json"], environment: env)
        #expect(json.status == 0, "no file holds recieve: the suggestion's hits are shown")
        let object = try #require(json.jsonLines.first)
        let suggestions = try #require(object["suggestions"] as? [[String: Any]])
        #expect(suggestions.count == 1)
        #expect(suggestions.first?["word"] as? String == "recieve")
        #expect(suggestions.first?["suggestion"] as? String == "receive")
        #expect(suggestions.first?["files"] as? Int == 1)
        #expect(object["fuzzy"] as? Bool == true, "the hits are the suggestion's")
        #expect(json.jsonLines.dropFirst().compactMap { $0["path"] as? String } == [root + "/parcel.txt"])
        // A word that matches keeps its own hits, the suggestion only said.
        try dir.write("tree/typo.txt", "We will recieve it.\n")
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        let own = try Docent.run(["search", "recieve", "--json"], environment: env).jsonLines
        #expect(!own.contains { $0["fuzzy"] as? Bool == true } && own.compactMap { $0["path"] as? String } == [root + "/typo.txt"])
        try FileManager.default.removeItem(atPath: root + "/typo.txt")
        #expect(try Docent.run(["index", root], environment: env).status == 0)

        let fuzzy = try Docent.run(["search", "recieve", "--fuzzy", "--json"], environment: env)
        #expect(fuzzy.status == 0)
        #expect(fuzzy.jsonLines.first?["fuzzy"] as? Bool == true)
        #expect(fuzzy.jsonLines.dropFirst().compactMap { $0["path"] as? String } == [root + "/parcel.txt"])
        #expect((fuzzy.jsonLines.last?["snippet"] as? String)?.contains("[receive]") == true)

        let paths = try Docent.run(["search", "recieve", "--fuzzy", "--files"], environment: env)
        #expect(paths.status == 0 && paths.stdout == root + "/parcel.txt\n")
        let piped = try Docent.run(["search", "recieve"], environment: env)
        #expect(piped.status == 1 && piped.stdout.isEmpty, "\(piped.stdout)")
        // Both command-line parsers (docent's own and ArgumentParser's) take --fuzzy.
        let parsed = try Docent.run(["search", "--limit=5", "--fuzzy", "recieve", "--files"], environment: env)
        #expect(parsed.stdout == root + "/parcel.txt\n")
    }

    @Test("A slip far likelier than the word typed (twenty times as many files) is searched too, said; the typed word's hits stay, a list of paths gets them alone")
    func confident() throws {
        for i in 0..<1_000 { try dir.write("tree/filler/\(i).txt", "filler text number \(i)\n") }
        for i in 0..<25 { try dir.write("tree/kept/\(i).txt", "kept separate from the rest, \(i)\n") }
        try dir.write("tree/typo.txt", "the letter says seperate\n")
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        let json = try Docent.run(["search", "seperate", "--json", "--limit", "50"], environment: env).jsonLines
        let suggestions = try #require(json.first?["suggestions"] as? [[String: Any]])
        #expect(suggestions.first?["suggestion"] as? String == "separate" && json.first?["fuzzy"] as? Bool == true)
        let paths = json.compactMap { $0["path"] as? String }
        #expect(paths.count == 26 && paths.contains(root + "/typo.txt"), "\(paths)")
        let listed = try Docent.run(["search", "seperate", "--files"], environment: env)
        #expect(listed.stdout == root + "/typo.txt\n", "\(listed.stdout)")
    }

    @Test("On a terminal: one line before the hits says what it means and how to search it")
    func terminal() throws {
        let command = "XDG_DATA_HOME=\(dir.path)/data \(Docent.binary.path) search recieve parcel"
        let out = String(decoding: try runTool("/usr/bin/env", ["NO_COLOR=1", "/usr/bin/script", "-qec", command, "/dev/null"]).output, as: UTF8.self)
        // Nothing holds both words: the suggestion is searched, and said.
        #expect(out.contains("Also searched: receive (1 file), for recieve.") && out.contains("parcel.txt"), "\(out)")
        let fuzzy = "XDG_DATA_HOME=\(dir.path)/data \(Docent.binary.path) search --fuzzy recieve"
        let found = String(decoding: try runTool("/usr/bin/env", ["NO_COLOR=1", "/usr/bin/script", "-qec", fuzzy, "/dev/null"]).output, as: UTF8.self)
        #expect(found.contains("Also searched: receive (1 file), for recieve."), "\(found)")
        #expect(found.contains("parcel.txt"))
    }

    @Test("On PostgreSQL too: the JSON object says what it means, --fuzzy finds the file")
    func onPostgres() throws {
        let shared = try TemporaryDirectory()
        let env = try TestStore.postgresql.environment(["XDG_DATA_HOME": shared.path + "/data"], directory: shared.path)
        try shared.write("tree/parcel.txt", "Please receive the parcel at the door.\n")
        try shared.write("tree/other.txt", "Nothing to see.\n")
        #expect(try Docent.run(["index", shared.path + "/tree"], environment: env).status == 0)
        let json = try Docent.run(["search", "recieve", "--json"], environment: env)
        #expect(json.status == 0, "no file holds recieve: the suggestion's hits: \(json.stderr)")
        let suggestions = try #require(json.jsonLines.first?["suggestions"] as? [[String: Any]], "\(json.stdout)")
        #expect(suggestions.count == 1 && suggestions.first?["suggestion"] as? String == "receive" && suggestions.first?["files"] as? Int == 1)
        let fuzzy = try Docent.run(["search", "recieve", "--fuzzy", "--json"], environment: env)
        #expect(fuzzy.status == 0 && fuzzy.jsonLines.dropFirst().compactMap { $0["path"] as? String } == [shared.path + "/tree/parcel.txt"])
        #expect((fuzzy.jsonLines.last?["snippet"] as? String)?.contains("[receive]") == true)
    }
}
