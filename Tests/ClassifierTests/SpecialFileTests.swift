import Foundation
import SystemPackage
import TestSupport
import Testing
@testable import Classifier
@testable import ContentTypes
#if canImport(Glibc)
import Glibc
#endif

@Suite("Special and hostile files")
struct SpecialFileTests {
    /// Events inotify saw on `path` while `body` ran: the kernel's word on whether the file was opened.
    /// The inotify events on `path` while `body` runs. With `waitingFor`, also those that come
    /// after, until one of them has come or 10 s have passed: a file's close is reported when
    /// its last descriptor goes, and a child process another test forks meanwhile holds a copy
    /// of every descriptor until it execs.
    static func inotifyEvents(on path: String, waitingFor awaited: UInt32 = 0, during body: () throws -> Void) throws -> UInt32 {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(fd >= 0)
        defer { close(fd) }
        let wd = inotify_add_watch(fd, path, UInt32(IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE))
        try #require(wd >= 0)
        try body()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var mask: UInt32 = 0
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            let n = read(fd, &buffer, buffer.count)
            var offset = 0
            while n > 0, offset + 16 <= n {
                buffer.withUnsafeBytes { raw in
                    mask |= raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                    offset += 16 + Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                }
            }
            guard mask & awaited == 0, awaited != 0, ContinuousClock.now < deadline else { break }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, 100)
        } while true
        return mask
    }

    @Test("A FIFO is classified at once from lstat, never opened")
    func fifo() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/pipe.txt"
        try #require(mkfifo(path, 0o644) == 0)
        let classifier = try Classifier()
        var result: Classification?
        let clock = ContinuousClock()
        var elapsed = Duration.zero
        let events = try Self.inotifyEvents(on: path) {
            elapsed = clock.measure { result = classifier.classify(FilePath(path), describe: true) }
        }
        #expect(events & UInt32(IN_OPEN) == 0, "the FIFO was opened")
        #expect(result?.contentType.identifier == "org.freedesktop.mime.inode.fifo")
        #expect(result?.reason == .special(.fifo))
        #expect(result?.magic == nil)
        #expect(elapsed < .seconds(1), "a FIFO must never block the classifier")
    }

    @Test("A regular file is opened exactly once for classification, and read-only")
    func regularFileOpenedOnce() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("notes.md", "# Title\n\nSome *text*.\n")
        let classifier = try Classifier()
        var result: Classification?
        let events = try Self.inotifyEvents(on: path, waitingFor: UInt32(IN_CLOSE_NOWRITE)) {
            result = classifier.classify(FilePath(path), describe: true)
        }
        #expect(events & UInt32(IN_OPEN) != 0)
        #expect(events & UInt32(IN_CLOSE_NOWRITE) != 0, "opened read-only")
        #expect(result?.contentType == .markdown)
        #expect(result?.prefix?.bytes == Array("# Title\n\nSome *text*.\n".utf8), "the bytes are kept for the document")
        #expect(result?.prefix?.isWholeFile == true)
    }

    @Test("Directories, symbolic links (dangling, looping) and devices are typed from lstat")
    func otherSpecials() throws {
        let dir = try TemporaryDirectory()
        let classifier = try Classifier()
        let dangling = dir.path + "/dangling.pdf"
        try #require(symlink(dir.path + "/nowhere", dangling) == 0)
        let loop = dir.path + "/loop"
        try #require(symlink(loop, loop) == 0)
        let cases: [(String, String, String)] = [
            (dir.path, "public.folder", "special"),
            (dangling, "public.symlink", "symlink"),
            (loop, "public.symlink", "symlink"),
            ("/dev/null", "org.freedesktop.mime.inode.chardevice", "special"),
        ]
        for (path, expected, code) in cases {
            let result = classifier.classify(FilePath(path))
            #expect(result.contentType.identifier == expected, "\(path)")
            #expect(result.reason.code == code)
            #expect(result.magic == nil)
        }
        if case .symbolicLink(_, let isDangling) = classifier.classify(FilePath(dangling)).reason {
            #expect(isDangling)
        } else {
            Issue.record("a dangling link is reported as such")
        }
    }

    @Test("A missing file is an error on that file, typed by name only")
    func missing() throws {
        let result = try Classifier().classify(FilePath("/nonexistent/docent/report.pdf"))
        #expect(result.status == nil)
        #expect(result.error == .noSuchFileOrDirectory)
        #expect(result.contentType == .pdf)
        #expect(result.reason.code == "unreadable")
    }

    @Test("A name that is not UTF-8 is classified by its bytes")
    func nonUTF8Name() throws {
        let dir = try TemporaryDirectory()
        var bytes = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".txt".utf8)  // Latin-1 é
        bytes.append(0)
        let path = bytes.withUnsafeBufferPointer { FilePath(platformString: UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
        let fd = path.withPlatformString { open($0, O_CREAT | O_WRONLY, 0o644) }
        try #require(fd >= 0)
        _ = "hello\n".withCString { write(fd, $0, 6) }
        close(fd)
        let result = try Classifier().classify(path)
        #expect(result.error == nil)
        #expect(result.contentType == .plainText)
        #expect(result.prefix?.bytes == Array("hello\n".utf8))
    }

    @Test("Empty files are typed by their name, or as empty documents")
    func emptyFiles() throws {
        let dir = try TemporaryDirectory()
        let classifier = try Classifier()
        let named = try dir.write("setup.py", "")
        let bare = try dir.write("EMPTY", "")
        #expect(classifier.classify(FilePath(named)).contentType == .pythonScript)
        #expect(classifier.classify(FilePath(bare)).contentType.identifier == "org.freedesktop.mime.application.x-zerosize")
        #expect(classifier.classify(FilePath(bare)).contentType.conforms(to: .data))
    }

    @Test("A file larger than the prefix is read only up to the limit")
    func boundedRead() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("big.log", String(repeating: "line of log text\n", count: 20_000))
        let classifier = try Classifier(prefixLimit: 4096)
        let result = classifier.classify(FilePath(path))
        #expect(result.prefix?.bytes.count == 4096)
        #expect(result.prefix?.isWholeFile == false)
        #expect(result.contentType.conforms(to: .plainText))
    }
}
