import DocumentModel
import FileAccess
import Foundation
import SystemPackage
import Testing
import TestSupport

@Suite("FileWrapper: lazy, bounded, read-only")
struct FileWrapperTests {
    @Test("A regular file is read only when asked, within its read limit")
    func regularFile() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("a.txt", "0123456789")
        let wrapper = try FileWrapper(path: FilePath(path), readLimit: 4)
        #expect(wrapper.isRegularFile && !wrapper.isDirectory && !wrapper.isSymbolicLink)
        #expect(wrapper.filename == "a.txt")
        #expect(wrapper.fileAttributes.size == 10)
        #expect(wrapper.fileAttributes.posixPermissions != nil)
        #expect(wrapper.isTruncated)
        #expect(wrapper.regularFileContents == Data("0123".utf8))
        #expect(try wrapper.prefix(2) == Data("01".utf8))
        let mapped = try #require(try wrapper.mappedContents())
        #expect(mapped.withUnsafeBytes { Array($0) } == Array("0123".utf8))
    }

    @Test("Bytes the classifier already read are reused, not read again")
    func reusesKnownPrefix() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("b.txt", "on disk")
        let wrapper = try FileWrapper(path: FilePath(path), knownPrefix: Array("on disk".utf8), knownPrefixIsWholeFile: true)
        try FileManager.default.removeItem(atPath: path)  // a read now would fail
        #expect(wrapper.regularFileContents == Data("on disk".utf8))

        // Without the prefix, the same situation is a read error that says what happened.
        let gone = try dir.write("c.txt", "x")
        let lazy = try FileWrapper(path: FilePath(gone))
        try FileManager.default.removeItem(atPath: gone)
        #expect(lazy.regularFileContents == nil)
        #expect(throws: FileReadError.self) { try lazy.readContents() }
    }

    @Test("Directories list their children; links give their destination and are not followed")
    func directoriesAndLinks() throws {
        let dir = try TemporaryDirectory()
        try dir.write("pkg/one.txt", "1")
        try dir.write("pkg/sub/two.txt", "2")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/pkg/link", withDestinationPath: "one.txt")
        let package = try FileWrapper(path: FilePath(dir.path + "/pkg"))
        #expect(package.isDirectory)
        let children = try #require(package.fileWrappers)
        #expect(Set(children.keys) == ["one.txt", "sub", "link"])
        #expect(children["sub"]?.fileWrappers?["two.txt"]?.regularFileContents == Data("2".utf8))
        let link = try #require(children["link"])
        #expect(link.isSymbolicLink)
        #expect(link.symbolicLinkDestinationURL?.path.hasSuffix("one.txt") == true)
        #expect(link.regularFileContents == nil)  // never followed
    }

    @Test("A FIFO is described and never opened")
    func fifo() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let wrapper = try FileWrapper(path: FilePath(path))
        #expect(wrapper.kind == .special)
        #expect(wrapper.fileAttributes.kind == .fifo)
        #expect(wrapper.regularFileContents == nil)  // returns at once: nothing was opened
    }

    @Test("A name that is not UTF-8 is read by its exact bytes")
    func nonUTF8Name() throws {
        let dir = try TemporaryDirectory()
        var name = FilePath(dir.path)
        let raw: [CChar] = [0x62, 0x61, CChar(bitPattern: 0xFF), 0x64, 0]  // "ba\xFFd"
        name.append(raw.withUnsafeBufferPointer { FilePath.Component(platformString: $0.baseAddress!)! })
        let fd = name.withPlatformString { open($0, O_CREAT | O_WRONLY, 0o600) }
        #expect(fd >= 0)
        _ = write(fd, "bytes", 5)
        close(fd)
        #expect(try FileWrapper(path: name).regularFileContents == Data("bytes".utf8))
    }

    @Test("In-memory wrappers, as renditions return them")
    func inMemory() {
        let file = FileWrapper(regularFileWithContents: Data("text".utf8))
        file.preferredFilename = "out.txt"
        #expect(file.preferredFilename == "out.txt")
        #expect(file.regularFileContents == Data("text".utf8))
        let folder = FileWrapper(directoryWithFileWrappers: ["out.txt": file])
        #expect(folder.fileWrappers?["out.txt"] === file)
    }

    @Test("A text rendition hands back its own string, not a copy; its bytes are its UTF-8")
    func textRendition() throws {
        let text = String(repeating: "naïve 文字 line\u{0}\n", count: 1_000)
        let file = FileWrapper(regularFileWithText: text)
        #expect(file.isRegularFile && !file.isTruncated)
        #expect(file.fileAttributes.size == Int64(text.utf8.count))
        let back = try file.readText()
        #expect(back == text)
        // The same storage: a long manual's text is not held twice while it is indexed.
        func storage(_ string: String) -> UnsafeRawPointer? {
            string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        #expect(storage(back) != nil && storage(back) == storage(text))
        #expect(file.regularFileContents == Data(text.utf8))
        #expect(try file.prefix(7) == Data("naïve ".utf8))
        // Bytes in memory are decoded, invalid sequences replaced.
        let bytes = FileWrapper(regularFileWithContents: Data([0x61, 0xFF, 0x62]))
        #expect(try bytes.readText() == "a\u{FFFD}b")
    }
}

@Suite("FileWrapper reuse of a partial prefix")
struct PartialPrefixTests {
    @Test("Only the bytes after a known head are read from the file")
    func readsOnlyTheRest() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("big.txt", "HEAD" + String(repeating: "x", count: 100))
        // The "known" head differs from the disk on purpose: if it were read again, "HEAD" would show.
        let wrapper = try FileWrapper(path: FilePath(path), knownPrefix: Array("head".utf8))
        let contents = try #require(wrapper.regularFileContents)
        #expect(contents.count == 104)
        #expect(contents.prefix(5) == Data("headx".utf8))
    }
}

@Suite("WholeFile: Docent's own small files, read whole")
struct WholeFileTests {
    @Test("Empty, missing, and larger than one read; no leak for an empty file (Foundation's reader leaks 4 KiB there)")
    func reads() throws {
        let dir = try TemporaryDirectory()
        let empty = try dir.write("empty", "")
        for _ in 0..<100 { #expect(WholeFile.read(empty) == Data()) }  // under LeakSanitizer (.ci/run), a leak fails the run
        #expect(WholeFile.read(dir.path + "/missing") == nil)
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let big = try dir.write("big", bytes: bytes)
        #expect(WholeFile.read(big) == Data(bytes))
        #expect(WholeFile.read(big, limit: 1000) == Data(bytes.prefix(1000)))
    }
}
