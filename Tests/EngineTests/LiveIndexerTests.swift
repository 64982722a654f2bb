@testable import Engine
import FileAccess
import Foundation
import Index
import SystemPackage
import Testing
import TestSupport
import Watcher

/// The live indexer and the preview cache in process: a real index file, real files changed,
/// renamed and removed, the watcher's changes handed in directly (no inotify, no waiting).
@Suite("Live changes in process")
struct LiveIndexerTests {
    let dir: TemporaryDirectory
    let root: FilePath
    let index: FileIndex
    let cache: PreviewCache

    init() throws {
        dir = try TemporaryDirectory()
        root = FilePath(dir.path).appending("root")
        try FileManager.default.createDirectory(atPath: root.string, withIntermediateDirectories: true)
        index = try FileIndex(path: dir.path + "/index/index.sqlite", privateDirectory: true)
        cache = PreviewCache(directory: FilePath(dir.path).appending("previews"))
    }

    func live(previews: PreviewCache? = nil) -> LiveIndexer {
        LiveIndexer(indexer: Indexer(index: index, settings: .defaults(), workers: 2, previews: previews))
    }

    func write(_ relative: String, _ text: String) throws -> FilePath {
        FilePath(try dir.write("root/" + relative, text))
    }

    func paths(matching word: String) throws -> [String] {
        try index.search(SearchRequest(match: .term(word), limit: 10)).map { String(decoding: $0.path, as: UTF8.self) }.sorted()
    }

    @Test("A change read again only when its signature moved; a rename keeps the row; a removal drops it")
    func changesRenamesRemovals() throws {
        let a = try write("a.txt", "the first kettle")
        let live = live()
        _ = try live.indexer.run(roots: [root])
        let inode = try #require(try index.file(at: a.bytes)).inode

        #expect(try live.apply([.changed(a)]) == LiveSummary(unchanged: 1), "an event with no change reads nothing")
        _ = try write("a.txt", "the second teapot, longer")
        #expect(try live.apply([.changed(a)]) == LiveSummary(read: 1))
        #expect(try paths(matching: "teapot") == [a.string] && paths(matching: "kettle").isEmpty)

        let b = root.appending("b.txt")
        #expect(rename(a.string, b.string) == 0)
        #expect(try live.apply([.moved(from: a, to: b)]) == LiveSummary(moved: 1), "renamed, not read again")
        #expect(try index.file(at: b.bytes)?.inode == inode && index.file(at: a.bytes) == nil)

        #expect(unlink(b.string) == 0)
        #expect(try live.apply([.changed(b)]) == LiveSummary(removed: 1), "a change to a file that is gone removes its row")
        #expect(try paths(matching: "teapot").isEmpty)
    }

    @Test("A directory moved and removed as a whole; a rescan catches what the kernel could not report")
    func treesAndRescans() throws {
        let inner = try write("docs/inner.txt", "a lantern")
        _ = try write("docs/deep/more.txt", "a lantern again")
        let live = live()
        _ = try live.indexer.run(roots: [root])
        let moved = root.appending("archive")
        #expect(rename(root.appending("docs").string, moved.string) == 0)
        #expect(try live.apply([.moved(from: root.appending("docs"), to: moved)]).moved == 2)
        #expect(try paths(matching: "lantern") == [moved.appending("deep/more.txt").string, moved.appending("inner.txt").string])
        #expect(try index.file(at: inner.bytes) == nil)

        _ = try write("archive/new.txt", "a lantern, unreported")  // as after an overflow
        let rescan = try live.apply([.rescan(moved)])
        #expect(rescan.read == 1 && rescan.rescanned == 3)

        #expect(try FileManager.default.removeItem(atPath: moved.string) == ())
        #expect(try live.apply([.removed(moved)]).removed == 3)
        #expect(try paths(matching: "lantern").isEmpty)
    }

    @Test("A cached preview is trusted only while the file is unchanged, and the row's reading remakes it")
    func previewFollowsTheFile() throws {
        let path = try write("note.md", "# Title\n\nan early draft")
        let live = live(previews: cache)
        _ = try live.indexer.run(roots: [root])
        let opener = live.indexer.opener
        let prepared = try opener.prepare(path)
        guard case .success(let made?) = opener.read(prepared, preview: true, text: false) else {
            Issue.record("no preview")
            return
        }
        let status = try FileStatus.lstat(path)
        #expect(cache.store(made, for: path, status: status, readLimit: live.indexer.readLimit))
        #expect(cache.lookup(path, status: status, readLimit: live.indexer.readLimit)?.preview?.plainText.contains("early draft") == true)

        _ = try write("note.md", "# Title\n\nthe final version, longer")
        let changed = try FileStatus.lstat(path)
        #expect(cache.lookup(path, status: changed, readLimit: live.indexer.readLimit) == nil, "a changed file's entry is stale")
        #expect(try live.apply([.changed(path)]).read == 1)
        let current = cache.lookup(path, status: changed, readLimit: live.indexer.readLimit)
        #expect(current?.preview?.plainText.contains("final version") == true, "made from the reading that made the row")
        #expect(current?.text == nil, "the entry holds the preview, not the indexed text")
    }

    @Test("The preview refresher: renamed entries follow their file unread, removed ones go, changed ones are remade")
    func refresher() throws {
        let refresher = PreviewRefresher(cache: cache)
        let path = try write("a.txt", "one plum")
        #expect(refresher.regenerate(path, readLimit: Settings.defaults().readBytes))
        let renamed = root.appending("b.txt")
        #expect(rename(path.string, renamed.string) == 0)
        #expect(refresher.apply([.moved(from: path, to: renamed)]) == PreviewRefreshSummary(moved: 1))
        #expect(!cache.contains(path) && cache.contains(renamed))

        _ = try write("b.txt", "two plums, riper")
        #expect(refresher.apply([.rescan(root)]) == PreviewRefreshSummary(regenerated: 1))
        let status = try FileStatus.lstat(renamed)
        #expect(cache.lookup(renamed, status: status, readLimit: Settings.defaults().readBytes)?.preview?.plainText.contains("riper") == true)

        #expect(unlink(renamed.string) == 0)
        #expect(refresher.apply([.changed(renamed)]) == PreviewRefreshSummary(removed: 1))
        #expect(!cache.contains(renamed))
    }
}

@Suite("Files compressed on their own, filed under what they hold")
struct CompressedFilesTests {
    @Test("A gzipped man page is a man page (found by type:man); gzipped text is text; damage keeps the file's own type")
    func innerTypes() throws {
        let dir = try TemporaryDirectory()
        let roff = ".TH KETTLE 1 2026-01-01\n.SH NAME\nkettle \\- boil water\n.SH DESCRIPTION\nHeats a teapot.\n"
        for (name, text) in [("kettle.1", roff), ("notes.txt", "a gzipped note about teapots\n")] {
            let path = try dir.write("root/" + name, text)
            #expect(try runTool("/bin/gzip", ["-n", path]).status == 0)
        }
        _ = try dir.write("root/broken.1.gz", bytes: [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xFF, 0xFF])
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        _ = try Indexer(index: index, workers: 1).run(roots: [FilePath(dir.path + "/root")])
        func type(_ name: String) throws -> String? { try index.file(at: Array((dir.path + "/root/" + name).utf8))?.contentType }
        #expect(try type("kettle.1.gz") == "org.troff.man-page")
        #expect(try type("notes.txt.gz") == "public.plain-text")
        #expect(try type("broken.1.gz") == "org.gnu.gnu-zip-archive", "nothing read: the file's own type")
        var request = SearchRequest(match: .term("teapot"), limit: 10)
        request.contentTypes = try index.contentTypes(conformingTo: "org.troff.man-page")
        #expect(try index.search(request).map { ($0.displayPath as NSString).lastPathComponent } == ["kettle.1.gz"])
    }
}
