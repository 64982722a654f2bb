import FileAccess
import Foundation
import Testing
import TestSupport

/// What the index finds compared with grep on real trees, and searches while an indexer writes.
@Suite("Recall against grep, and searching during indexing")
struct RecallConcurrencyTests {
    let dir: TemporaryDirectory
    var root: String { dir.path + "/tree" }
    var env: [String: String] { ["XDG_DATA_HOME": dir.path + "/data"] }

    init() throws {
        dir = try TemporaryDirectory()
    }

    func searchPaths(_ query: String) throws -> Set<String> {
        let r = try Docent.run(["search", query, "--files", "--limit", "1000000"], environment: env)
        #expect(r.status <= 1, "\(query): \(r.stderr)")
        return Set(r.stdout.split(separator: "\n").map(String.init))
    }

    /// Copies up to `limit` regular files of at most `maxBytes` from `source` (in name order,
    /// compressed files left out: grep does not read inside them) to `destination`.
    func copyTree(_ source: String, to destination: String, limit: Int, maxBytes: Int, suffix: String? = nil) throws -> Int {
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: source) else { return 0 }
        var copied = 0
        for case let relative as String in walker {
            guard copied < limit else { break }
            if let suffix, !relative.hasSuffix(suffix) { continue }
            if relative.hasSuffix(".gz") || relative.hasSuffix(".bz2") || relative.hasSuffix(".xz") { continue }
            // roff sources are indexed rendered (macro names are not words of the page).
            if relative.hasSuffix(".mdoc") || relative.hasSuffix(".man") { continue }
            let from = source + "/" + relative
            guard let attributes = try? manager.attributesOfItem(atPath: from),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let size = attributes[.size] as? Int, size <= maxBytes,
                  let data = WholeFile.read(from)
            else { continue }
            let to = destination + "/" + relative
            try manager.createDirectory(atPath: (to as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: to))
            copied += 1
        }
        return copied
    }

    @Test("Every plain-text file grep -rlwi finds, docent search finds too (real /usr/share/doc and Python files)")
    func recall() throws {
        var copied = try copyTree("/usr/share/doc", to: root + "/doc", limit: 1500, maxBytes: 256 << 10)
        let python = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib").filter { $0.hasPrefix("python3.") }.sorted().last
        if let python {
            copied += try copyTree("/usr/lib/" + python, to: root + "/python", limit: 300, maxBytes: 256 << 10, suffix: ".py")
        }
        #expect(copied >= 300)
        let r = try Docent.run(["index", root], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        // Files small enough to be indexed whole (the default text budget is 16 MiB).
        let plainText = try searchPaths("type:public.plain-text")
        #expect(plainText.count >= 200)

        let words = ["license", "copyright", "software", "warranty", "free", "version", "import", "return", "class", "error",
                     "file", "system", "function", "string", "default", "example", "public", "support", "without", "option",
                     "thread", "buffer", "memory", "debian", "package", "return", "should", "source"]
        var checked = 0
        for word in words {
            let grep = try runTool("/usr/bin/env", ["LC_ALL=C.UTF-8", "grep", "-rlwi", "--", word, root])
            let grepped = Set(String(decoding: grep.output, as: UTF8.self).split(separator: "\n").map(String.init))
            let expected = grepped.intersection(plainText)
            let found = try searchPaths(word)
            let missing = expected.subtracting(found)
            #expect(missing.isEmpty, "\(word): \(missing.count) of \(expected.count) missing, such as \(missing.sorted().prefix(3))")
            checked += expected.count
        }
        #expect(checked >= 1000, "the comparison covered \(checked) (word, file) pairs")
    }

    @Test("A search while docent index writes completes, with the rows committed before it")
    func searchWhileIndexing() throws {
        for i in 0..<300 { try dir.write("tree/a/\(i).txt", "kettle number \(i)\n") }
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        for i in 0..<4000 {
            try dir.write("tree/b/\(i / 100)/\(i).txt", "teapot \(i) " + String(repeating: "steeping leaves in hot water ", count: 40))
        }
        let indexer = Process()
        indexer.executableURL = Docent.binary
        indexer.arguments = ["index", root]
        indexer.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        indexer.standardOutput = FileHandle.nullDevice
        indexer.standardError = FileHandle.nullDevice
        try indexer.run()
        var overlapping = 0
        while indexer.isRunning {
            let kettles = try searchPaths("kettle")
            #expect(kettles.count == 300)
            let teapots = try searchPaths("teapot")  // some, all or none of the batch in progress
            #expect(teapots.count <= 4000)
            if indexer.isRunning { overlapping += 1 }
        }
        indexer.waitUntilExit()
        #expect(indexer.terminationStatus == 0)
        #expect(overlapping >= 1, "no search ran while the indexer was writing")
        #expect(try searchPaths("teapot").count == 4000)
    }
}
