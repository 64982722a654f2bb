import Foundation
import Testing
import TestSupport

/// EPUB, mail, EXIF, audio and video tags, man pages and RTF, on samples Debian ships
/// (`ls.1.gz`, `file.1.gz`) and files written in the test by trusted tools (pandoc, Python's
/// email and mailbox modules, ffmpeg, exiftool); and on hostile ones (truncated, corrupted at
/// random offsets, malformed, nested without end), photographs and databases among them.
@Suite("Books, mail, media, man pages and RTF", .serialized)
final class BooksMailMediaTests: FormatFixture {
    static let book = """
        ---
        title: The Lighthouse Keeper
        author: [Ada Quillfeather, Bo Ramsay]
        lang: en-GB
        ---

        # Arrival

        The keeper climbed the spiral stairs at dusk, humming about periwinkles.

        ## The lamp

        Whale oil and brass, polished daily.

        # Departure

        A storm called the zephyrine gale took the boat away.

        """

    /// An .eml (quoted-printable Latin-1 text, an HTML alternative, a PDF attachment) and a
    /// mailbox holding it, a base64 HTML-only message and one with a malformed multipart.
    static let mail = """
        from email.message import EmailMessage
        from email.utils import formatdate
        import mailbox
        m = EmailMessage()
        m['From'] = 'Zoë Marchetti <zoe@example.org>'
        m['To'] = 'Tomás Brandt <tomas@example.net>'
        m['Cc'] = 'ops@example.com'
        m['Subject'] = 'Café inventory: the quokka shipment'
        m['Date'] = formatdate(1700000000)
        m.set_content('Bonjour Tomás,\\nThe quokka crates arrive on Thursday. Naïve estimate: 12.\\n', charset='iso-8859-1', cte='quoted-printable')
        m.add_alternative('<html><body><p>Bonjour <b>Tomás</b>, the <i>quokka</i> crates arrive.</p></body></html>', subtype='html')
        m.add_attachment(b'%PDF-1.4 not really', maintype='application', subtype='pdf', filename='manifest-lagoon.pdf')
        open('mail.eml', 'wb').write(bytes(m))
        h = EmailMessage()
        h['From'] = 'news@example.com'; h['To'] = 'x@example.com'; h['Subject'] = 'Only HTML'; h['Date'] = formatdate(1700100000)
        h.set_content('<p>The <b>xylophonist</b> arrived</p>', subtype='html', charset='utf-8', cte='base64')
        box = mailbox.mbox('box.mbox'); box.add(m); box.add(h)
        box.add(b'From: a@example.com\\nSubject: broken\\nContent-Type: multipart/mixed\\n\\n--nothing\\nthe narwhal\\n')
        box.flush()
        """

    static let rtf = #"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times;}}{\info{\title Okapi field notes}{\author Ingrid S\'f8rensen}}"#
        + #"{\*\generator hand}\f0 The okapi is shy \u8212? a caf\'e9 regular.\par{\pict\pngblip 89504e47 okapiimagebytes}Second line.\par}"#

    static let manPage = """
        .TH MARMOSET 7 "March 2025" "docent tests" "Miscellaneous"
        .SH NAME
        marmoset \\- a small monkey of the \\fBAmazon\\fR
        .SH SYNOPSIS
        .B marmoset
        [\\fB\\-\\-tail\\fR \\fIlength\\fR]
        .SH DESCRIPTION
        .TP
        .B \\-\\-tail
        Climbs the \\(lqcanopy\\(rq at dawn.

        """

    @Test("Samples: words found, properties shown, plain text exported")
    func samples() throws {
        try Self.book.write(toFile: dir.path + "/book.md", atomically: true, encoding: .utf8)
        try tool("/usr/bin/pandoc", [dir.path + "/book.md", "-o", root + "/book.epub"])
        try tool("/usr/bin/pandoc", [dir.path + "/book.md", "-t", "epub2", "-o", root + "/book2.epub"])
        try tool(Self.python, ["-c", Self.mail])
        let tags = ["-metadata", "title=Song of the Marimba", "-metadata", "artist=Quintessa Vale", "-metadata", "album=Harbour Lights",
                    "-metadata", "track=7", "-metadata", "date=2019", "-metadata", "genre=Jazz"]
        for ext in ["mp3", "flac", "ogg", "opus", "m4a"] {
            try tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3"] + tags + ["song." + ext])
        }
        try tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=64x48:rate=10", "-c:v", "mpeg4",
                                     "-metadata", "title=Clip of the Tide", "-metadata", "artist=Quintessa Vale", "clip.mp4"])
        for ext in ["jpg", "tiff"] {
            try tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48", "-frames", "1", "photo." + ext])
        }
        try tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS 5D Mark IV", "-LensModel=EF24-70mm f/2.8L II USM",
                                      "-DateTimeOriginal=2024:06:01 14:03:22", "-Orientation#=6", "-ImageDescription=Puffins at Skomer",
                                      "-GPSLatitude=51.7361", "-GPSLatitudeRef=N", "-GPSLongitude=5.2961", "-GPSLongitudeRef=W", "photo.jpg", "photo.tiff"])
        try FileManager.default.copyItem(atPath: "/usr/share/man/man1/ls.1.gz", toPath: root + "/ls.1.gz")
        try FileManager.default.copyItem(atPath: "/usr/share/man/man1/file.1.gz", toPath: root + "/file.1.gz")  // mdoc
        try Self.manPage.write(toFile: root + "/marmoset.7", atomically: true, encoding: .utf8)
        try Self.rtf.write(toFile: root + "/notes.rtf", atomically: true, encoding: .utf8)

        let before = Set(try FileManager.default.contentsOfDirectory(atPath: root))
        let summary = try index()
        let kinds = try errors()
        #expect(kinds == ["box.mbox": "malformed-mail"], "only the mailbox's third message, malformed on purpose: \(kinds)")
        #expect(summary["files"] as? Int == before.count)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root)) == before, "nothing written beside the files")

        // EPUB: spine text, metadata, contents.
        #expect(try search("periwinkles") == ["book.epub", "book2.epub"])
        for name in ["book.epub", "book2.epub"] {
            let epub = try preview(name)
            #expect(epub["documentType"] as? String == "EPUBDocument" && epub["title"] as? String == "The Lighthouse Keeper")
            #expect(list(epub, "Authors") == ["Ada Quillfeather", "Bo Ramsay"] && field(epub, "Language") == "en-GB")
            #expect("\(epub["preview"] ?? "")".contains("The lamp"), "the table of contents")
        }
        #expect(try export("book.epub").contains("Whale oil and brass, polished daily."))

        // Mail: decoded bodies (quoted-printable Latin-1, base64 HTML), headers, attachments.
        #expect(try search("quokka") == ["box.mbox", "mail.eml"])
        #expect(try search("xylophonist") == ["box.mbox"])
        #expect(try search("manifest") == ["box.mbox", "mail.eml"], "attachment names")
        #expect(try search("Marchetti") == ["box.mbox", "mail.eml"], "senders")
        let eml = try preview("mail.eml")
        #expect(eml["title"] as? String == "Café inventory: the quokka shipment" && field(eml, "From") == "Zoë Marchetti <zoe@example.org>")
        #expect(field(eml, "To") == "Tomás Brandt <tomas@example.net>" && field(eml, "Cc") == "ops@example.com")
        #expect(field(eml, "Date") == "2023-11-14T22:13:20Z" && list(eml, "Attachments") == ["manifest-lagoon.pdf (application/pdf)"])
        #expect(try export("mail.eml").contains("Naïve estimate: 12."))
        #expect(field(try preview("box.mbox"), "Messages") == "3")

        // EXIF, JPEG and TIFF.
        #expect(try search("Skomer") == ["photo.jpg", "photo.tiff"])
        for name in ["photo.jpg", "photo.tiff"] {
            let photo = try preview(name)
            #expect(photo["documentType"] as? String == "PhotoDocument" && field(photo, "Camera") == "Canon EOS 5D Mark IV")
            #expect(field(photo, "Lens") == "EF24-70mm f/2.8L II USM" && field(photo, "Taken") == "2024:06:01 14:03:22")
            #expect(field(photo, "GPS") == "51.736100, -5.296100" && field(photo, "Orientation") == "Right-top")
        }

        // Audio and video: tags and duration.
        #expect(try search("Quintessa") == ["clip.mp4", "song.flac", "song.m4a", "song.mp3", "song.ogg", "song.opus"])
        for ext in ["mp3", "flac", "ogg", "opus", "m4a"] {
            let song = try preview("song." + ext)
            #expect(song["title"] as? String == "Song of the Marimba" && field(song, "Album") == "Harbour Lights", "\(ext)")
            #expect(field(song, "Track") == "7" && field(song, "Year") == "2019" && field(song, "Genre") == "Jazz", "\(ext)")
            #expect(field(song, "Duration") == "0:03", "\(ext)")
        }
        #expect(try preview("clip.mp4")["title"] as? String == "Clip of the Tide")

        // Man pages: compressed (man and mdoc) and plain roff, rendered.
        #expect(try search("\"list directory contents\"") == ["ls.1.gz"])
        let ls = try preview("ls.1.gz")
        #expect(ls["title"] as? String == "ls(1) — list directory contents" && field(ls, "Summary") == "list directory contents")
        #expect(field(try preview("file.1.gz"), "Summary") == "determine file type")
        #expect(try search("\"--mime-type\"").contains("file.1.gz"))
        let marmoset = try preview("marmoset.7")
        #expect(marmoset["documentType"] as? String == "ManPageDocument" && field(marmoset, "Summary") == "a small monkey of the Amazon")
        let page = try export("marmoset.7")
        #expect(page.contains("marmoset [--tail length]") && page.contains("Climbs the “canopy” at dawn.") && !page.contains("\\f"), "\(page)")

        // RTF: text in its code page and Unicode, \info, pictures skipped.
        let rtf = try preview("notes.rtf")
        #expect(rtf["title"] as? String == "Okapi field notes" && field(rtf, "Author") == "Ingrid Sørensen")
        let text = try export("notes.rtf")
        #expect(text == "The okapi is shy — a café regular.\nSecond line.", "\(text)")
        #expect(try search("okapiimagebytes").isEmpty)
    }

    @Test("Hostile books, mail, media, pages and RTF: each gets a row, the run goes on")
    func hostile() throws {
        try Self.book.write(toFile: dir.path + "/book.md", atomically: true, encoding: .utf8)
        try tool("/usr/bin/pandoc", [dir.path + "/book.md", "-o", dir.path + "/book.epub"])
        try tool(Self.python, ["-c", Self.mail], in: dir.path)
        try tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=2", "-metadata", "title=x", dir.path + "/song.flac"])
        try tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=2", dir.path + "/song.m4a"])
        for ext in ["jpg", "tiff"] {
            try tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48", "-frames", "1", dir.path + "/photo." + ext])
        }
        try tool("/usr/bin/exiftool", ["-q", "-overwrite_original", "-Make=Canon", "-GPSLatitude=51.7", "-GPSLatitudeRef=N", "-ImageDescription=x",
                                      dir.path + "/photo.jpg", dir.path + "/photo.tiff"])
        try tool(Self.python, ["-c", "import sqlite3; c = sqlite3.connect('db.sqlite'); c.execute('create table t(x)'); "
                                   + "c.executemany('insert into t values (?)', [(str(i) * 50,) for i in range(2000)]); c.commit()"], in: dir.path)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/photo.jpg"))
        let tiff = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/photo.tiff"))
        let sqlite = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/db.sqlite"))
        var exif = [UInt8](jpeg)  // the EXIF segment (the file's first kilobytes) scrambled
        for _ in 0..<40 { exif[Int.random(in: 20..<min(exif.count, 1_500))] = UInt8.random(in: 0...255) }
        try Data(exif).write(to: URL(fileURLWithPath: root + "/scrambled-exif.jpg"))
        try tiff.prefix(tiff.count / 2).write(to: URL(fileURLWithPath: root + "/truncated.tiff"))
        try sqlite.prefix(sqlite.count / 2).write(to: URL(fileURLWithPath: root + "/truncated.sqlite"))
        var pages = [UInt8](sqlite)
        for _ in 0..<200 { pages[Int.random(in: 100..<pages.count)] = UInt8.random(in: 0...255) }
        try Data(pages).write(to: URL(fileURLWithPath: root + "/corrupt.sqlite"))
        let epub = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/book.epub"))
        let mbox = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/box.mbox"))
        let flac = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/song.flac"))
        let m4a = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/song.m4a"))
        var generator = SystemRandomNumberGenerator()
        func corrupt(_ data: Data, _ name: String) throws {
            var bytes = [UInt8](data)
            for _ in 0..<50 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
        }
        try epub.prefix(epub.count / 2).write(to: URL(fileURLWithPath: root + "/truncated.epub"))
        try corrupt(epub, "corrupt.epub")
        try mbox.prefix(mbox.count / 3).write(to: URL(fileURLWithPath: root + "/truncated.mbox"))
        try corrupt(mbox, "corrupt.mbox")
        try flac.prefix(flac.count / 3).write(to: URL(fileURLWithPath: root + "/truncated.flac"))
        try corrupt(m4a, "corrupt.m4a")
        try corrupt(flac, "corrupt.flac")
        _ = try dir.write("root/noise.mp3", bytes: (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) })
        _ = try dir.write("root/fake.epub", bytes: [UInt8]("PK\u{3}\u{4} not a zip at all".utf8))
        _ = try dir.write("root/deep.rtf", #"{\rtf1 "# + String(repeating: "{", count: 200_000) + "deep")
        _ = try dir.write("root/open.rtf", #"{\rtf1\ansi{\b unfinished text"#)
        _ = try dir.write("root/garbage.1", ".TH X 1\n" + String(repeating: "\\(\\*[\\f\\s+\\h'", count: 10_000))
        _ = try dir.write("root/ok.txt", "an ordinary kettle")
        try tool(Self.python, ["-c", "import gzip, os; open('noise.1.gz', 'wb').write(gzip.compress(os.urandom(4096)))"])

        let files = try FileManager.default.contentsOfDirectory(atPath: root).count
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: root))
        let summary = try index()
        #expect(summary["files"] as? Int == files)
        let kinds = try errors()
        #expect(kinds["open.rtf"] == "truncated")
        #expect(kinds["truncated.mbox"] == "truncated" && kinds["truncated.epub"] == "damaged-zip", "\(kinds)")
        #expect(kinds["fake.epub"] == "unreadable", "\(kinds)")
        #expect(kinds["truncated.sqlite"] != nil, "\(kinds)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root)) == before, "nothing written beside a damaged database")
        #expect(try search("kettle") == ["ok.txt"])
        #expect(try search("unfinished") == ["open.rtf"], "what was read before the end stands")
        #expect(kinds["deep.rtf"] == "truncated", "200,000 groups left open; past 1,000 levels they are skipped")
        #expect(try index()["indexed"] as? Int == 0, "error rows are not retried until the file changes")
    }

    func list(_ preview: [String: Any], _ key: String) -> [String]? {
        (preview["metadata"] as? [[String: Any]])?.first { $0["key"] as? String == key }?["value"] as? [String]
    }

    func export(_ relative: String) throws -> String {
        let result = try Docent.run(["export", root + "/" + relative, "--as", "public.plain-text"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
