import Foundation
import TestSupport
import Testing

/// Runs the built `docent` binary the way a user does.
struct Docent {
    static var binary: URL {
        // The test bundle sits beside the products in the build directory.
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("docent")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/docent")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var jsonLines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
    }

    /// Runs `docent ARGUMENTS`; with a `wrapper` (`["/usr/bin/setpriv", "--reuid=…"]`), as
    /// `WRAPPER… docent ARGUMENTS`.
    static func run(_ arguments: [String], environment: [String: String] = [:], wrapper: [String] = [],
                    executable: URL? = nil) throws -> Result {
        let process = Process()
        let binary = executable ?? Self.binary
        if let launcher = wrapper.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = wrapper.dropFirst() + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["DOCENT_CONFIG_DIR"] = "/nonexistent/docent-test-config"
        env["XDG_CACHE_HOME"] = NSTemporaryDirectory() + "docent-test-cache"  // never the user's own cache
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let (stdout, stderr) = readToEnd(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

extension Docent {
    /// `docent` and `docent-engine` where any user can run them: linked (or copied) into a
    /// fresh `0755` directory under /tmp. The build's own directory may sit in a home or a
    /// `mktemp -d` directory that another user cannot enter (`/root` is `0700` on Debian).
    static let reachableByOthers: URL = {
        let directory = "/tmp/docent-test-bin-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        _ = mkdir(directory, 0o755)
        _ = chmod(directory, 0o755)  // whatever the umask
        for name in ["docent", "docent-engine"] {
            let source = binary.deletingLastPathComponent().appendingPathComponent(name).path
            let target = directory + "/" + name
            if link(source, target) != 0 { try? FileManager.default.copyItem(atPath: source, toPath: target) }
            _ = chmod(target, 0o755)
        }
        atexit {
            let directory = "/tmp/docent-test-bin-\(getpid())"
            for name in ["docent", "docent-engine", ""] { _ = remove(directory + "/" + name) }
        }
        return URL(fileURLWithPath: directory + "/docent")
    }()
}

@Suite("docent info and docent types, end to end")
struct DocentCLITests {
    static func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "docent-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("info --json prints one object per file with the documented keys")
    func infoJSON() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "print('hello')\n".write(toFile: dir + "/hello.py", atomically: false, encoding: .utf8)
        let r = try Docent.run(["info", "--json", "--describe", dir + "/hello.py", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = r.jsonLines
        try #require(objects.count == 2)
        for key in ["path", "contentType", "mimeType", "conformsTo", "magic", "sharedMIMEInfo", "reason"] {
            #expect(objects.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        #expect(objects[0]["contentType"] as? String == "public.python-script")
        #expect((objects[0]["conformsTo"] as? [String])?.contains("public.source-code") == true)
        let magic = try #require(objects[0]["magic"] as? [String: Any])
        #expect(magic["mimeType"] is String)
        #expect(magic["description"] is String)
        #expect(objects[1]["contentType"] as? String == "com.adobe.pdf")
        #expect(objects[1]["mimeType"] as? String == "application/pdf")
    }

    // Regression: the harness read a child's stdout to its end before its stderr, so a child
    // that filled the stderr pipe (64 KiB) before closing stdout never ended.
    @Test("The harness reads a child's standard output and error at once")
    func harnessReadsBothPipes() throws {
        let r = try Docent.run(["-c", "head -c 300000 /dev/zero | tr '\\0' e >&2; echo out"], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(r.status == 0 && r.stdout == "out\n" && r.stderr.utf8.count == 300_000)
    }

    @Test("A missing file is an error on that file: the others are shown, exit status 2 at the end")
    func missingFile() throws {
        let r = try Docent.run(["info", "--json", "/nonexistent/a.txt", "/etc/passwd"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/a.txt"))
        #expect(r.jsonLines.contains { $0["path"] as? String == "/etc/passwd" && $0["contentType"] as? String == "public.plain-text" })
        #expect(r.jsonLines.contains { $0["path"] as? String == "/nonexistent/a.txt" && $0["error"] != nil })
    }

    @Test("Human output names the type, its chain, libmagic's view, the name evidence and the reason")
    func infoText() throws {
        let r = try Docent.run(["info", "/usr/include/magic.h"])
        #expect(r.status == 0)
        for needle in ["public.c-header", "public.source-code", "libmagic:", "shared-mime-info:", "*.h", "reason:", "document:"] {
            #expect(r.stdout.contains(needle), "missing \(needle) in \(r.stdout)")
        }
    }

    @Test("docent answers info itself as docent-engine would: same lines, same readers, any number of workers")
    func infoInTheFront() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/t", withIntermediateDirectories: true)
        let samples = ["a.py": "print(1)\n", "b.md": "# B\n", "c.json": "{}\n", "d.csv": "a,b\n1,2\n", "e.html": "<!DOCTYPE html><html></html>\n",
                       "f.xml": "<?xml version=\"1.0\"?><r/>\n", "g.eml": "From: a@b\nSubject: x\n\nhi\n", "h": "plain words\n"]
        for (name, text) in samples { try text.write(toFile: dir + "/t/" + name, atomically: false, encoding: .utf8) }
        for i in 0..<600 { try "n\(i)\n".write(toFile: dir + "/t/n\(i).txt", atomically: false, encoding: .utf8) }
        let files = samples.keys.sorted().map { dir + "/t/" + $0 } + ["/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", "/usr/bin/ls"]
        let engine = Docent.binary.deletingLastPathComponent().appendingPathComponent("docent-engine")
        for form in [[], ["--json"], ["--brief"]] {
            let front = try Docent.run(["info"] + form + files)
            let viaEngine = try Docent.run(["info"] + form + files, executable: engine)
            #expect(front.status == 0 && viaEngine.status == 0, "\(front.stderr) \(viaEngine.stderr)")
            #expect(front.stdout == viaEngine.stdout)
            #expect(front.stdout.contains("PDFDocument") || form == ["--brief"])
        }
        // A tree: the same lines in walk order, whatever the number of workers.
        let one = try Docent.run(["info", "-r", "--brief", "--workers", "1", dir])
        let four = try Docent.run(["info", "-r", "--brief", "--workers", "4", dir])
        #expect(one.status == 0 && one.stdout == four.stdout)
        #expect(one.stdout.split(separator: "\n").count == samples.count + 600)
    }

    @Test("info --recursive walks a tree and types a FIFO without blocking")
    func recursive() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/a/b", withIntermediateDirectories: true)
        try "x = 1\n".write(toFile: dir + "/a/b/x.py", atomically: false, encoding: .utf8)
        try "# T\n".write(toFile: dir + "/a/readme.md", atomically: false, encoding: .utf8)
        #expect(mkfifo(dir + "/a/pipe", 0o644) == 0)
        let r = try Docent.run(["info", "-r", "--json", dir])
        #expect(r.status == 0, "\(r.stderr)")
        let types = Dictionary(uniqueKeysWithValues: r.jsonLines.map {
            (($0["path"] as? String ?? "").replacingOccurrences(of: dir + "/", with: ""), $0["contentType"] as? String ?? "")
        })
        #expect(types == ["a/b/x.py": "public.python-script", "a/readme.md": "net.daringfireball.markdown",
                          "a/pipe": "org.freedesktop.mime.inode.fifo"])
    }

    @Test("Bad usage is a clear message and exit status 2", arguments: [
        ["info", "--no-such-flag", "/etc/passwd"],
        ["info"],
        ["types", "com.example.no-such-type"],
        ["frobnicate"],
    ])
    func badUsage(arguments: [String]) throws {
        let r = try Docent.run(arguments)
        #expect(r.status == 2, "\(arguments): \(r.stderr)")
        #expect(!r.stderr.isEmpty)
    }

    @Test("Each bad number, missing or virtual directory is named for what it is, exit 2", arguments: [
        (["search", "kettle", "--limit", "-1"], "--limit must be at least 1"),
        (["search", "kettle", "--limit", "0"], "--limit must be at least 1"),
        (["index", "/proc/self"], "/proc/self: a directory of the kernel's proc file system"),
        (["index", "/sys/kernel"], "/sys/kernel: a directory of the kernel's sysfs file system"),
        (["index", "/no/such/place"], "/no/such/place: no such directory"),
        (["index", "/etc/hostname"], "/etc/hostname: not a directory"),
    ])
    func namedMistakes(arguments: [String], message: String) throws {
        let dir = try TemporaryDirectory()
        let r = try Docent.run(arguments, environment: ["XDG_DATA_HOME": dir.path + "/data", "XDG_CACHE_HOME": dir.path + "/cache"])
        #expect(r.status == 2 && r.stderr.contains(message), "\(arguments): \(r.stderr)")
    }

    @Test("A root given as a link to a directory indexes the directory; no hits are said on a terminal, not on a pipe")
    func linkedRootAndNoHits() throws {
        let dir = try TemporaryDirectory()
        try dir.write("real/a.txt", "a linked kettle")
        #expect(symlink(dir.path + "/real", dir.path + "/alias") == 0)
        let env = ["XDG_DATA_HOME": dir.path + "/data", "XDG_CACHE_HOME": dir.path + "/cache"]
        #expect(try Docent.run(["index", dir.path + "/alias"], environment: env).status == 0)
        let found = try Docent.run(["search", "kettle", "--files"], environment: env)
        #expect(found.stdout == dir.path + "/real/a.txt\n")
        let piped = try Docent.run(["search", "zebra"], environment: env)
        #expect(piped.status == 1 && piped.stdout.isEmpty && piped.stderr.isEmpty)
        let command = "XDG_DATA_HOME=\(dir.path)/data \(Docent.binary.path) search zebra; echo status=$?"
        let terminal = String(decoding: try runTool("/usr/bin/script", ["-qec", command, "/dev/null"]).output, as: UTF8.self)
        #expect(terminal.contains("no matches for zebra") && terminal.contains("status=1"), "\(terminal)")
    }

    @Test("types lists, filters by conformance, and shows one type")
    func types() throws {
        let images = try Docent.run(["types", "--conforming-to", "public.image", "--json"])
        #expect(images.status == 0)
        let ids = Set(images.jsonLines.compactMap { $0["identifier"] as? String })
        #expect(ids.isSuperset(of: ["public.png", "public.svg-image", "public.jpeg", "org.freedesktop.mime.image.x-xcf"]))
        #expect(!ids.contains("public.plain-text"))

        let one = try Docent.run(["types", "public.source-code", "--json"])
        let object = try #require(one.jsonLines.first)
        #expect((object["subtypes"] as? [String])?.contains("public.swift-source") == true)
        #expect((object["conformsTo"] as? [String])?.first == "public.plain-text")

        let byMIME = try Docent.run(["types", "image/png"])
        #expect(byMIME.stdout.hasPrefix("public.png"))
        #expect(byMIME.stdout.contains(".png"))
    }

    @Test("A malformed user declaration is reported with file and line; the run goes on")
    func userDeclarationDiagnostics() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "- identifier: com.example.notes\n  conformsTo: [public.plain-text]\n  extensions: [notes]\n- identifier: bad id\n"
            .write(toFile: dir + "/content-types.yaml", atomically: false, encoding: .utf8)
        try "hello\n".write(toFile: dir + "/monday.notes", atomically: false, encoding: .utf8)
        let r = try Docent.run(["info", "--json", dir + "/monday.notes"], environment: ["DOCENT_CONFIG_DIR": dir])
        #expect(r.status == 0)
        #expect(r.stderr.contains(dir + "/content-types.yaml:4"))
        #expect(r.jsonLines.first?["contentType"] as? String == "com.example.notes")
    }
}
