import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `docent serve` as a user meets it: a real server process over a real index, spoken to in
/// raw HTTP (so a test can send exactly the hostile request it means) and driven in Debian's
/// headless Chromium.
@Suite("docent serve: the viewer in a browser", .serialized)
final class ServeTests: WatchFixture {
    var server: StreamingProcess?
    var address = ""
    var http: RawHTTP!
    var token: String { String(address.split(separator: "=").last ?? "") }
    var cookie: String { "docent-\(http.port)=\(token)" }

    deinit { server?.stop() }

    /// Indexes the root and starts `docent serve --port 0`; its first line is the address.
    func serve(_ extraEnvironment: [String: String] = [:]) throws {
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        let server = try StreamingProcess(["serve", "--port", "0"], environment: env.merging(extraEnvironment) { $1 })
        self.server = server
        address = try #require(server.nextLine(within: 60))
        let match = try #require(address.firstMatch(of: /^http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64})$/))
        http = RawHTTP(port: Int(match.1)!)
    }

    func get(_ target: String) throws -> RawHTTP.Response { try http.get(target, cookie: cookie) }

    /// The row id of the hit for `name` in the results of `query`.
    func id(of name: String, query: String) throws -> Int {
        let page = try get("/api/search?q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query)).text
        let pattern = try Regex("data-id=\"(\\d+)\"><a href=\"/doc/\\d+\">(?:(?!</li>).)*?\(NSRegularExpression.escapedPattern(for: name))<")
        let match = try #require(page.firstMatch(of: pattern), "no hit for \(name) in \(page)")
        return Int(match.output[1].substring!)!
    }

    @Test("Only 127.0.0.1, through a real socket: the token, strict headers, an SVG only as an image, ids never paths")
    func safety() throws {
        try write("notes/plan.txt", "the quarterly plan")
        try write("notes/<script>alert(1)<\\script>.txt", "quarterly hostile name")
        try write("notes/drawing.svg", """
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert('svg')</script><rect width="10" height="10"/></svg>
            """)
        try serve()

        // Listening on loopback alone: the kernel's table of listening TCP sockets says so.
        let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let hexPort = String(format: "%04X", http.port)
        let listening = table.split(separator: "\n").filter { $0.contains(":\(hexPort) ") && $0.split(separator: " ")[3] == "0A" }
        #expect(!listening.isEmpty && listening.allSatisfy { $0.split(separator: " ")[1] == "0100007F:\(hexPort)" })

        // The token, its cookie, the Host and Sec-Fetch-Site checks and traversal are tested in
        // process (ViewerTests); here, once, through the real socket: the token becomes a cookie.
        #expect(try http.get("/").status == 401)
        let first = try http.get("/?q=plan&token=\(token)")
        #expect(first.status == 303 && first.headers["location"] == "/?q=plan")
        #expect(try get("/?q=plan").status == 200)
        #expect(try http.get("/", cookie: cookie, headers: ["Host": "evil.example:\(http.port)"]).status == 421)
        #expect(try get("/raw/../../../../etc/passwd").status == 404)

        // Pages: a strict policy, no inline script at all, and a file's name as text.
        let page = try get("/?q=quarterly")
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe"))
        #expect(page.headers["x-content-type-options"] == "nosniff" && page.headers["x-frame-options"] == "DENY")
        #expect(page.text.contains("&lt;script&gt;alert(1)&lt;\\script&gt;.txt"))
        #expect(!page.text.contains("<script>alert"))
        #expect(page.text.components(separatedBy: "<script").count - 1 == page.text.components(separatedBy: "<script src=\"/static/app.js\"").count - 1)

        // An SVG is served only as an image, under a policy of its own: its script never runs.
        let svg = try id(of: "drawing.svg", query: "name:drawing.svg")
        let raw = try get("/raw/\(svg)")
        #expect(raw.status == 200 && raw.headers["content-type"] == "image/svg+xml")
        let svgPolicy = try #require(raw.headers["content-security-policy"])
        #expect(svgPolicy.contains("default-src 'none'") && svgPolicy.contains("sandbox") && !svgPolicy.contains("script-src"))
        let preview = try get("/api/preview/\(svg)").text
        #expect(preview.contains("<img class=\"picture\" src=\"/raw/\(svg)?v=") && !preview.contains("<svg"))
        // Opened by itself it is a download, never a page of this origin.
        #expect(raw.headers["content-disposition"]?.hasPrefix("attachment") == true)
        // A text file's bytes are plain text, whatever they hold, never sniffed.
        let text = try get("/raw/\(try id(of: "plan.txt", query: "plan"))")
        #expect(text.status == 200 && text.headers["content-type"] == "text/plain; charset=utf-8" && text.headers["x-content-type-options"] == "nosniff")
    }

    @Test("Search as docent search does: hits with marks, errors at their column, type and root filters, bookmarkable")
    func search() throws {
        try write("a/lighthouse.md", "# Keepers\n\nThe lighthouse keeper's log.")
        try write("b/lighthouse.txt", "A lighthouse on the coast.")
        try write("b/harbour.txt", "Nothing to see.")
        try write("b/lighthouse.py", "# the lighthouse lamp\nprint('on')\n")
        try serve()
        let answer = try get("/api/search?q=lighthouse")
        let hits = answer.text
        #expect(hits.contains("<mark>lighthouse</mark>") && hits.contains("lighthouse.md") && hits.contains("lighthouse.txt"))
        // The server's share, for the browser's tools and the benchmark: search = index + html.
        let timing = try #require(answer.headers["server-timing"])
        #expect(timing.contains(try Regex("^search;dur=[0-9.]+, index;dur=[0-9.]+, html;dur=[0-9.]+$")))
        #expect(!hits.contains("harbour.txt"))
        #expect(hits.contains("<time datetime="))

        let error = try get("/api/search?q=lighthouse%20OR").text
        #expect(error.contains("role=\"alert\"") && error.contains("Column 12"))
        #expect(error.contains("<mark class=\"at\">"))

        // Nothing matched a misspelt word: the matches of what it meant, and the count says so, with a link.
        let misspelt = try get("/api/search?q=lighthuose%20coast").text
        #expect(misspelt.contains(try Regex("No matches for lighthuose coast; [0-9]+ match(es)? for <a class=\"suggestion\" href=\"/\\?q=lighthouse%20coast\">lighthouse coast</a>")),
                "\(misspelt)")
        #expect(misspelt.contains("<mark>lighthouse</mark>") || misspelt.contains("lighthouse.md"), "\(misspelt)")
        let nothing = try get("/api/search?q=qzxvnothingclose").text
        #expect(nothing.contains(">No matches<") && !nothing.contains("suggestion"))
        #expect(!hits.contains("Did you mean"))

        let source = try get("/api/search?q=lighthouse&group=source").text
        #expect(source.contains("lighthouse.py") && !source.contains("lighthouse.md") && !source.contains("lighthouse.txt"))
        let inB = try get("/api/search?q=lighthouse&root=" + (root + "/b").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!).text
        #expect(inB.contains("lighthouse.txt") && !inB.contains("lighthouse.md"))
        let page0 = try get("/").text
        #expect(page0.contains("<option value=\"source\">") && page0.contains("<option value=\"\(root)\">"))

        // /?q= is the whole page with its results in it.
        let page = try get("/?q=lighthouse+keeper%27s").text  // as a form sends it: "+" is a space
        #expect(page.contains("value=\"lighthouse keeper&#39;s\""))
        #expect(page.contains("<mark>lighthouse</mark>") && page.contains("lighthouse.md") && !page.contains("lighthouse.txt"))

        // Renditions download by id.
        let markdown = try id(of: "lighthouse.md", query: "lighthouse")
        let html = try get("/export/\(markdown)?as=public.html")
        #expect(html.status == 200 && html.text.contains("<h1>Keepers</h1>"))
        #expect(html.headers["content-disposition"]?.hasPrefix("attachment; filename=\"lighthouse.html\"") == true)
        #expect(html.headers["content-security-policy"]?.contains("sandbox") == true)
    }

    @Test("Results and previews follow the disk over Server-Sent Events; the watcher runs in the server when none does")
    func live() throws {
        try write("log.txt", "first entry about comets")
        try serve()
        let log = try id(of: "log.txt", query: "comets")
        let preview = try http.stream("/events/preview/\(log)", cookie: cookie)
        let results = try http.stream("/events/search?q=comets", cookie: cookie)
        #expect(results.next("ready") != nil, "the results stream never said it was following")

        // The preview as it is when followed, then as the disk changes.
        #expect(try #require(preview.next("preview")).contains("first entry about comets"))
        try write("log.txt", "second entry about comets and meteors")
        let changed = try #require(preview.next("preview"))
        #expect(changed.contains("second entry about comets and meteors"))

        try write("new.txt", "a comets newcomer")
        let added = try #require(results.next("results"))
        #expect(added.contains("new.txt") && added.contains("class=\"new\""))

        try FileManager.default.removeItem(atPath: root + "/new.txt")
        let removed = try #require(results.next("results"))
        #expect(!removed.contains("new.txt") && removed.contains("log.txt"))

        let status = try get("/status").text
        #expect(status.contains("Pending changes") && status.contains(root))
    }

    @Test("A stream the browser closes ends at once, and the work behind it with it (not at the next 30 s heartbeat)")
    func closedStreamsEnd() throws {
        try write("log.txt", "an entry about comets")
        try serve()
        let log = try id(of: "log.txt", query: "comets")
        let pid = try #require(server?.pid)
        // Each followed preview holds an inotify instance in the server; count them.
        func inotifyInstances() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == "anon_inode:inotify" }.count
        }
        func settles(to count: Int) -> Bool {
            for _ in 0..<100 where inotifyInstances() != count { usleep(20_000) }
            return inotifyInstances() == count
        }
        let before = inotifyInstances()
        var streams = try (0..<3).map { _ in try http.stream("/events/preview/\(log)", cookie: cookie) }
        for stream in streams { #expect(stream.next("preview")?.contains("comets") == true) }
        #expect(settles(to: before + 3), "three followed previews")
        streams.removeLast(2)  // closes two connections
        #expect(settles(to: before + 1), "the two closed streams still follow their file")
        // The one left open still follows the disk.
        try write("log.txt", "a later entry about comets")
        #expect(streams[0].next("preview")?.contains("later entry") == true)
        streams.removeAll()
        #expect(settles(to: before))
    }

    @Test("Pictures: images, a PDF's first page and a song's cover, kept in the freedesktop thumbnail cache and shared")
    func pictures() throws {
        func tool(_ arguments: [String]) throws {
            #expect(try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y"] + arguments).status == 0)
        }
        try FileManager.default.createDirectory(atPath: root + "/media", withIntermediateDirectories: true)
        try tool(["-f", "lavfi", "-i", "testsrc=size=640x480", "-frames", "1", root + "/media/chart.png"])
        try tool(["-f", "lavfi", "-i", "testsrc=size=320x240", "-frames", "1", root + "/media/chart photo.jpg"])
        try tool(["-f", "lavfi", "-i", "sine=duration=1", "-i", root + "/media/chart.png", "-map", "0", "-map", "1",
                  "-c:a", "libmp3lame", "-c:v", "png", "-disposition:v", "attached_pic", root + "/media/chart song.mp3"])
        try FileManager.default.copyItem(atPath: FormatFixture.shippedPDF, toPath: root + "/media/chart spec.pdf")
        try write("media/chart broken.png", "\u{89}PNG\r\n\u{1A}\nnot really")
        try serve()

        func png(_ target: String) throws -> (keys: [String: String], width: Int, height: Int)? {
            let response = try get(target)
            guard response.status == 200, response.headers["content-type"] == "image/png" else { return nil }
            return Self.pngInfo(response.body)
        }
        let chart = try id(of: "chart.png", query: "name:chart.png")
        let thumbnail = try #require(try png("/thumb/\(chart)"))
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        let uri = "file://" + root + "/media/chart.png"
        let date = try FileManager.default.attributesOfItem(atPath: root + "/media/chart.png")[.modificationDate] as? Date
        let modified = Int(try #require(date).timeIntervalSince1970)
        #expect(thumbnail.keys["Thumb::URI"] == uri && thumbnail.keys["Thumb::MTime"] == String(modified))

        // Where the standard puts it: MD5 of the URI, 0600 in a 0700 directory.
        let md5 = try runTool("/usr/bin/md5sum", [], stdin: Data(uri.utf8)).output
        let name = String(decoding: md5.prefix(32), as: UTF8.self)
        let kept = dir.path + "/cache/thumbnails/large/\(name).png"
        #expect(FileManager.default.fileExists(atPath: kept))
        var info = stat()
        #expect(stat(kept, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(dir.path + "/cache/thumbnails/large", &info) == 0 && info.st_mode & 0o777 == 0o700)

        // A thumbnail already there with valid keys (a file manager's) is used as it is; one whose
        // keys name another file, or an older version, is not.
        let jpeg = try id(of: "chart photo.jpg", query: "name:*.jpg")
        #expect(try png("/thumb/\(jpeg)?size=normal")?.width == 128)
        let jpegURI = "file://" + root + "/media/chart%20photo.jpg"
        let jpegName = String(decoding: try runTool("/usr/bin/md5sum", [], stdin: Data(jpegURI.utf8)).output.prefix(32), as: UTF8.self)
        let normal = dir.path + "/cache/thumbnails/normal/\(jpegName).png", large = dir.path + "/cache/thumbnails/large/\(jpegName).png"
        #expect(FileManager.default.fileExists(atPath: normal))
        try FileManager.default.copyItem(atPath: normal, toPath: large)
        #expect(try png("/thumb/\(jpeg)?size=large")?.width == 128)  // reused, not made again
        try FileManager.default.removeItem(atPath: large)
        try FileManager.default.copyItem(atPath: kept, toPath: large)  // chart.png's thumbnail under the photo's name
        let remade = try #require(try png("/thumb/\(jpeg)?size=large"))
        #expect(remade.keys["Thumb::URI"] == jpegURI && remade.width == 256)

        // A PDF's first page, a song's cover.
        let pdf = try id(of: "chart spec.pdf", query: "name:*.pdf")
        let page = try #require(try png("/picture/\(pdf)"))
        #expect(page.height == 512 && page.width > 300)
        let song = try id(of: "chart song.mp3", query: "name:*.mp3")
        #expect(try png("/picture/\(song)")?.width == 512)

        // What cannot be pictured: no picture, and the failure remembered until the file changes.
        let broken = try id(of: "chart broken.png", query: "name:*broken*")
        #expect(try get("/thumb/\(broken)").status == 404)
        let failures = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/cache/thumbnails/fail/docent-0.1")
        #expect(failures.count == 1)
        #expect(try get("/thumb/\(broken)").status == 404)
    }

    @Test("A long PDF page by page: opened at its match's page, each page's picture beside its text, from the stored text")
    func pdfPages() throws {
        try FileManager.default.createDirectory(atPath: root + "/papers", withIntermediateDirectories: true)
        try Data(SamplePDF.make(pages: 40, word: "zebrafinch")).write(to: URL(fileURLWithPath: root + "/papers/long.pdf"))
        try serve()
        let pdf = try id(of: "long.pdf", query: "zebrafinch")
        let page = try get("/doc/\(pdf)?q=zebrafinch").text
        #expect(page.contains("40 pages · "))
        // Opened on the last page, the only one holding the word (its 320 lines too many to
        // start at its top), its match marked; the picture beside it follows the page read.
        let stretch = try #require(page.firstMatch(of: /<ol class="lines" start="(\d+)"[^>]* data-page="(\d+)">/))
        #expect(stretch.output.2 == "40" && page.contains("<mark>zebrafinch</mark>"))
        #expect(page.contains("data-pictures=\"/picture/\(pdf)?v=") && page.contains("data-pages=\"40\""))
        // Each page starts with its own picture (shown there on a narrow screen).
        let above = try get("/api/lines/\(pdf)?from=\(Int(stretch.output.1)! - 330)&count=300").text
        #expect(above.contains("class=\"page-start\" data-page=\"40\"><figure class=\"page\"><img src=\"/picture/\(pdf)?v="))
        #expect(above.contains("&amp;page=40\" loading=\"lazy\"") && above.contains("Page 40 of 40"))
        // Each page's picture by its number, drawn at the reader's size; no page past the last.
        let drawn = try get("/picture/\(pdf)?page=40")
        #expect(drawn.status == 200 && drawn.headers["content-type"] == "image/png")
        let size = try #require(Self.pngInfo(drawn.body))
        #expect(size.height == 1200 && (920...935).contains(size.width))
        #expect(try get("/picture/\(pdf)?page=41").status == 404)
        #expect(try png(get("/picture/\(pdf)"))?.height == 512, "without a page: the first, as the thumbnail")
    }

    private func png(_ response: RawHTTP.Response) -> (keys: [String: String], width: Int, height: Int)? {
        response.status == 200 ? Self.pngInfo(response.body) : nil
    }

    @Test("A picture that crashes its helper costs only that picture; the server goes on")
    func crashingPicture() throws {
        func tool(_ arguments: [String]) throws {
            #expect(try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y"] + arguments).status == 0)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try tool(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames", "1", root + "/crash.png"])
        try tool(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames", "1", root + "/fine.png"])
        try serve(["DOCENT_HELPER_FAULT": "crash:crash.png"])
        let crash = try id(of: "crash.png", query: "name:crash.png")
        let fine = try id(of: "fine.png", query: "name:fine.png")
        #expect(try get("/thumb/\(crash)").status == 404)
        #expect(try get("/thumb/\(fine)").status == 200)
        #expect(try get("/?q=fine").status == 200)
    }

    @Test("In Chromium: type, see hits, open a preview by keyboard, watch it and the list follow the disk; read a long file from its match; sort, open, narrow; nothing hostile runs")
    func browser() throws {
        try write("notes.txt", "first line about comets\n")
        var lines = (1...1_002).map { "line \($0) of filler" }
        (lines[118], lines[119], lines[899]) = ("cache = okapimemory.allocate()  # a comment", "okapimemory again", "free(okapimemory)")
        lines[0] = "import os, sys  # Python, coloured by the reader"
        try write("reader.py", lines.joined(separator: "\n") + "\n")
        for i in 1...25 { try write("pebble\(i).txt", "pebblestone number \(i)\n") }
        try write("<img src=x onerror=alert(1)>.txt", "hostile name\n")
        try write("drawing.svg", """
            <svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><script>alert('svg')</script>\
            <rect width="40" height="40" fill="teal"/><title>hostile drawing</title></svg>
            """)
        try FileManager.default.copyItem(atPath: FormatFixture.shippedPDF, toPath: root + "/guide.pdf")
        try Data(SamplePDF.make(pages: 40, word: "zebrafinch")).write(to: URL(fileURLWithPath: root + "/manual.pdf"))
        // HTML with its structure and its navigation; a gzipped man page with two prototypes.
        try write("harbour.html", """
            <html><head><title>Harbour guide</title></head><body>
            <nav><a href="/">Home</a> | <a href="/next">quaymaster navigation bar</a></nav>
            <h2>Moorings of the quaymaster</h2><ul><li>north berth</li><li>south berth</li></ul>
            <table><tr><th>Berth</th><th>Length</th></tr><tr><td>North</td><td>40 m</td></tr></table>
            </body></html>
            """)
        try write("frob.3", """
            .TH FROB 3
            .SH NAME
            frob \\- frobnicate the quaymaster's files
            .SH SYNOPSIS
            .nf
            .B #include <frob.h>
            .PP
            .BI "int frob(int " fd ", const char *" name );
            .BI "int unfrob(int " fd );
            .fi
            .SH DESCRIPTION
            Frobnicates.
            """)
        #expect(try runTool("/bin/gzip", ["-n", root + "/frob.3"]).status == 0)
        // Open and Show in folder run the `opener:` setting, which records what it was given.
        let opened = dir.path + "/opened.txt"
        let opener = try dir.write("opener.sh", "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \(opened)\n")
        chmod(opener, 0o755)
        try FileManager.default.createDirectory(atPath: dir.path + "/config", withIntermediateDirectories: true)
        try "opener: [\(opener)]\n".write(toFile: dir.path + "/config/config.yaml", atomically: true, encoding: .utf8)
        try serve(["DOCENT_CONFIG_DIR": dir.path + "/config"])
        // Screenshots are kept for CI under .build/artifacts/viewer.
        let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/artifacts/viewer").path
        // The Selenium script the benchmark uses too (Debian's python3-selenium and chromium-driver).
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/browser/drive.py").path
        let run = try runTool("/usr/bin/python3", [script, "test", address, root, artifacts, opened])
        let report = String(decoding: run.output, as: UTF8.self)
        #expect(run.status == 0, "\(report)")
        #expect(report.contains("\"ok\": true"))
        #expect(FileManager.default.fileExists(atPath: artifacts + "/search.png"))
        #expect(FileManager.default.fileExists(atPath: artifacts + "/pdf-preview.png"))
        #expect(FileManager.default.fileExists(atPath: artifacts + "/reader.png"))
        #expect(FileManager.default.fileExists(atPath: artifacts + "/pdf-reader.png"))
        #expect(FileManager.default.fileExists(atPath: artifacts + "/narrow.png"))
        #expect(FileManager.default.fileExists(atPath: artifacts + "/structure.png"))
    }

    /// A PNG's tEXt keys and size.
    static func pngInfo(_ data: Data) -> (keys: [String: String], width: Int, height: Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 24, bytes[1] == 0x50 else { return nil }
        func number(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var keys: [String: String] = [:]
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = number(offset), type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { break }
            if type == "tEXt", let zero = bytes[(offset + 8) ..< (offset + 8 + length)].firstIndex(of: 0) {
                keys[String(decoding: bytes[(offset + 8) ..< zero], as: UTF8.self)] =
                    String(decoding: bytes[(zero + 1) ..< (offset + 8 + length)], as: UTF8.self)
            }
            offset += 12 + length
        }
        return (keys, number(16), number(20))
    }
}
