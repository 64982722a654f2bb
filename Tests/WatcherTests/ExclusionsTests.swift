#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemPackage
import Testing
@testable import Watcher

@Suite("Exclusions and the crawl")
struct ExclusionsTests {
    /// Names that sit at the edges of the fast paths: empty-looking, dotted, the pattern
    /// itself, a pattern's literal part alone, non-UTF-8 bytes.
    static let names: [[UInt8]] = {
        var names = ["a", ".git", ".gitx", "x.git", "file.swp", ".swp", "swp", "a.swpx", "notes~", "~", "~x", ".#lock", ".#", "#.",
                     "node_modules", "node_module", "build.log", "log", "x*y", "report[1].txt", "a?b", "Cache", ".cache"]
            .map { Array($0.utf8) }
        names.append([0x66, 0xFF, 0x2E, 0x73, 0x77, 0x70])  // "f\xFF.swp": not UTF-8
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab.~#*swpgitx[]?_".utf8)
        for _ in 0..<2_000 { names.append((0..<Int.random(in: 1...7, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }) }
        return names
    }()

    static let patterns = [".git", "node_modules", ".cache", "*.swp", "*~", ".#*", "*.log", "x\\*y", "report[0-9].txt", "a?b", "*a*", "g*t"]

    @Test("a name is excluded exactly when fnmatch says a pattern matches it (the fast paths agree with the C function)")
    func namesAgreeWithFnmatch() throws {
        for pattern in Self.patterns {
            let exclusions = Exclusions([pattern])
            for bytes in Self.names {
                let cName = bytes.map { CChar(bitPattern: $0) } + [0]
                let name = try #require(cName.withUnsafeBufferPointer { FilePath.Component(platformString: $0.baseAddress!) })
                let expected = cName.withUnsafeBufferPointer { fnmatch(pattern, $0.baseAddress!, 0) == 0 }
                #expect(exclusions.excludes(name, in: FilePath("/r")) == expected, "\(pattern) on \(bytes)")
                #expect((exclusions.verdict(name, in: FilePath("/r"), checkingPaths: false) == .excluded) == expected)
            }
        }
    }

    @Test("exact paths and path patterns are looked at only where they can match; markers win over patterns")
    func pathsAndMarkers() {
        let exclusions = Exclusions(["*/drafts/*.tmp", "*.noindex"], paths: [FilePath("/home/me/.local/share/docent")], markers: [".noindex"])
        #expect(exclusions.mayExcludePaths(in: FilePath("/home/me/.local/share")))
        #expect(exclusions.excludes(FilePath.Component("docent"), in: FilePath("/home/me/.local/share")))
        #expect(!exclusions.excludes(FilePath.Component("docent"), in: FilePath("/home/me")))
        #expect(exclusions.excludes(FilePath.Component("a.tmp"), in: FilePath("/home/me/drafts")))
        #expect(!exclusions.excludes(FilePath.Component("a.tmp"), in: FilePath("/home/me/final")))
        #expect(exclusions.verdict(FilePath.Component(".noindex"), in: FilePath("/x"), checkingPaths: true) == .marker)
        #expect(exclusions.verdict(FilePath.Component("b.noindex"), in: FilePath("/x"), checkingPaths: true) == .excluded)
        #expect(exclusions.verdict(FilePath.Component("b"), in: FilePath("/x"), checkingPaths: true) == .kept)
        // Equal settings make equal exclusions, whatever order plain names and markers came in.
        let names = [".git", ".hg", "node_modules", ".cache", "__pycache__", "CVS", "*.swp"]
        #expect(Exclusions(names, markers: [".noindex", ".nomedia"]) == Exclusions(names.reversed(), markers: [".nomedia", ".noindex"]))
        let only = Exclusions(paths: [FilePath("/a/b")])
        #expect(!only.mayExcludePaths(in: FilePath("/a/c")))
        #expect(only.adding(paths: [FilePath("/a/c/d")]).mayExcludePaths(in: FilePath("/a/c")))
        #expect(only.excludes(FilePath("/a/b/c/d")))
    }

    @Test("the crawl leaves out excluded names and marked directories, and lists the rest with their status")
    func crawl() throws {
        var template = Array((NSTemporaryDirectory() + "docent-test-XXXXXX").utf8CString)
        let root = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tree = ["keep.txt", "old.swp", "src/main.c", "src/.git/HEAD", "src/deep/x.txt", "private/.noindex", "private/secret.txt",
                    "build~", "weird[1].md"]
        for path in tree {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(path.utf8).write(to: url)
        }
        let crawler = Crawler(exclusions: Exclusions([".git", "*.swp", "*~"], markers: [".noindex"]))
        var found: [String] = []
        var statuses = 0
        crawler.walkDirectories(FilePath(root), statusOfFiles: true, visit: { directory in
            for (i, name) in directory.files.enumerated() {
                found.append(String(directory.path.appending(name).string.dropFirst(root.count + 1)))
                if directory.fileStatuses[i]?.size == Int64(found.last!.utf8.count) { statuses += 1 }
            }
        })
        #expect(found.sorted() == ["keep.txt", "src/deep/x.txt", "src/main.c", "weird[1].md"])
        #expect(statuses == 4)
    }
}
