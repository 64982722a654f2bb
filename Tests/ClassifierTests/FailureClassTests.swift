import Foundation
import SystemPackage
import TestSupport
import Testing
@testable import Classifier
@testable import ContentTypes

/// The failure classes seen on an independent set of typed samples (issue 18), each with
/// samples built here from the format's specification, named as people name them and also
/// without a name to lean on.
@Suite("Classification failure classes")
struct FailureClassTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var expected: String
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let starWriter = Samples.compoundFile([
        ("StarWriterDocument", Array(repeating: 0x20, count: 5000)), ("\u{1}CompObj", Samples.compObj("StarWriter 5.0")),
        ("SfxDocumentInfo", Array(repeating: 0, count: 300)),
    ])
    static let starImpress = Samples.compoundFile([
        ("\u{1}CompObj", Samples.compObj("StarImpress 5.0")), ("StarDrawDocument3", Array(repeating: 1, count: 6000)),
    ])
    static let starDraw = Samples.compoundFile([
        ("\u{1}CompObj", Samples.compObj("StarDraw 5.0")), ("StarDrawDocument3", Array(repeating: 1, count: 6000)),
    ])
    static let starCalc = Samples.compoundFile([("StarCalcDocument", Array(repeating: 2, count: 4500))])
    static let wordPerfect = Samples.compoundFile([("PerfectOffice_MAIN", [0xFF] + Samples.text("WPC") + Array(repeating: 0, count: 700))])
    static let powerPoint = Samples.compoundFile([
        ("Current User", Array(repeating: 0, count: 60)), ("PowerPoint Document", Array(repeating: 3, count: 9000)),
        ("\u{5}SummaryInformation", Array(repeating: 0, count: 200)),
    ])
    static let works = Samples.compoundFile([
        ("\u{1}CompObj", Samples.compObj("Microsoft Works 4.0 Document")), ("MatOST", Array(repeating: 4, count: 5000)),
    ])
    static let word = Samples.compoundFile([("WordDocument", Array(repeating: 5, count: 5000)), ("1Table", Array(repeating: 0, count: 900))])
    static let outlook = Samples.compoundFile([("__properties_version1.0", Array(repeating: 0, count: 100)),
                                               ("__substg1.0_0037001F", Samples.text("Subject"))])
    static let msi = Samples.compoundFile([("\u{5}SummaryInformation", Array(repeating: 0, count: 100))],
                                          rootCLSID: [0x84, 0x10, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC0, 0, 0, 0, 0, 0, 0, 0x46])

    static let vorbis = Samples.oggPage([0x01] + Samples.text("vorbis") + Array(repeating: 0, count: 23))
    static let opus = Samples.oggPage(Samples.text("OpusHead") + [1, 2, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 0])
    static let theora = Samples.oggPage([0x80] + Samples.text("theora") + Array(repeating: 0, count: 35))
    static let flacOgg = Samples.oggPage([0x7F] + Samples.text("FLAC") + [1, 0, 0, 1] + Samples.text("fLaC") + Array(repeating: 0, count: 38))

    static let pem = Samples.text("""
        -----BEGIN CERTIFICATE-----
        MIIBszCCAR2gAwIBAgIUJ3Hq0m3RBYgDxUWmW2yq0wJ5xHgwDQYJKoZIhvcNAQELBQAwDDEKMAgGA1UEAwwBeDAeFw0yNjEx
        -----END CERTIFICATE-----

        """)
    /// A DER certificate's opening: SEQUENCE { SEQUENCE { [0] { INTEGER 2 } INTEGER … } }.
    static let der: [UInt8] = [0x30, 0x82, 0x01, 0xB3, 0x30, 0x82, 0x01, 0x1D, 0xA0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x14]
        + Array(repeating: 0x27, count: 20) + [0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B, 0x05, 0x00]
        + Array(repeating: 0x11, count: 380)

    static let koffice: [UInt8] = [0x1F, 0x8B, 0x08, 0x04, 0, 0, 0, 0, 0, 0x03] + Samples.text("KOffice") + [0]
        + Samples.text("application/x-kword") + [0x04, 0x06] + Array(repeating: 0x33, count: 200)

    static let mail = Samples.text("""
        Received: from mail.example.org by mx.example.net; Mon, 2 Nov 2026 10:00:00 +0000
        From: Ada <ada@example.org>
        To: bob@example.net
        Subject: plans
        Content-Type: text/html; charset=utf-8

        <html><body><p>See you <b>Tuesday</b>.</p></body></html>

        """)
    static let mailWithoutMagic = Samples.text("""
        Delivered-To: bob@example.net
        X-Mailer: Example 1.0
        MIME-Version: 1.0
        Content-Type: text/html; charset=utf-8

        <!DOCTYPE html><html><head><title>Offer</title></head><body><p>Hello</p></body></html>

        """)

    static let pdf = Samples.text("garbage written by a broken mailer\r\n%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

    static let cases: [Case] = [
        // OLE2 compound files whose format is named in the stream.
        Case(name: "letter.sdw", bytes: starWriter, expected: "application/vnd.stardivision.writer"),
        Case(name: "letter", bytes: starWriter, expected: "application/vnd.stardivision.writer"),
        Case(name: "slides.sdd", bytes: starImpress, expected: "application/vnd.stardivision.impress"),
        Case(name: "slides", bytes: starImpress, expected: "application/vnd.stardivision.impress"),
        Case(name: "drawing.sda", bytes: starDraw, expected: "application/vnd.stardivision.draw"),
        Case(name: "sheet.sdc", bytes: starCalc, expected: "application/vnd.stardivision.calc"),
        Case(name: "letter.wpd", bytes: wordPerfect, expected: "application/vnd.wordperfect"),
        Case(name: "letter-wp", bytes: wordPerfect, expected: "application/vnd.wordperfect"),
        Case(name: "talk.ppt", bytes: powerPoint, expected: "application/vnd.ms-powerpoint"),
        Case(name: "talk.pps", bytes: powerPoint, expected: "application/vnd.ms-powerpoint"),
        Case(name: "talk", bytes: powerPoint, expected: "application/vnd.ms-powerpoint"),
        Case(name: "notes.wps", bytes: works, expected: "application/vnd.ms-works"),
        Case(name: "notes.doc", bytes: works, expected: "application/vnd.ms-works"),
        Case(name: "notes", bytes: works, expected: "application/vnd.ms-works"),
        Case(name: "memo.doc", bytes: word, expected: "application/msword"),
        Case(name: "memo.dot", bytes: word, expected: "application/msword-template"),
        Case(name: "mail.msg", bytes: outlook, expected: "application/vnd.ms-outlook"),
        Case(name: "setup.msi", bytes: msi, expected: "application/x-msi"),
        Case(name: "classic.wpd", bytes: [0xFF] + Samples.text("WPC") + [0x10, 0, 0, 0, 1, 0x0A] + Array(repeating: 0, count: 300),
             expected: "application/vnd.wordperfect"),
        // E-mail saved as .eml that libmagic calls text or HTML.
        Case(name: "plans.eml", bytes: mail, expected: "message/rfc822"),
        Case(name: "offer.eml", bytes: mailWithoutMagic, expected: "message/rfc822"),
        // Extensions that mean two things.
        Case(name: "plot.m", bytes: Samples.text("% plot a sine\nx = linspace(0, 2*pi);\nplot(x, sin(x));\n"), expected: "text/x-matlab"),
        Case(name: "area.m", bytes: Samples.text("function a = area(r)\n  a = pi * r^2;\nend\n"), expected: "text/x-matlab"),
        Case(name: "main.m", bytes: Samples.text("#import <Foundation/Foundation.h>\nint main(void) { @autoreleasepool { NSLog(@\"hi\"); } return 0; }\n"),
             expected: "text/x-objcsrc"),
        Case(name: "clip.ts", bytes: (0..<8).flatMap { _ in [0x47, 0x40, 0x00, 0x10] + Array(repeating: 0xFF, count: 184) }, expected: "video/mp2t"),
        Case(name: "app_de.ts", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE TS>\n<TS version=\"2.1\" language=\"de_DE\">\n<context>\n    <name>Main</name>\n</context>\n</TS>\n"),
             expected: "text/vnd.trolltech.linguist"),
        Case(name: "main.ts", bytes: Samples.text("import { readFile } from \"fs\";\nexport function size(path: string): number {\n  return readFile(path).length;\n}\n"),
             expected: "application/x-typescript"),
        Case(name: "movie.sub", bytes: Samples.text("{1}{72}Hello there.\n{73}{140}General Kenobi.\n"), expected: "text/x-microdvd"),
        Case(name: "movie2.sub", bytes: Samples.text("[INFORMATION]\n[TITLE]Movie\n[AUTHOR]\n[END INFORMATION]\n00:00:01.00,00:00:02.00\nHello\n"),
             expected: "text/x-subviewer"),
        Case(name: "movie3.sub", bytes: Samples.text("TITLE=Movie\nFORMAT=TIME\n\n1 2\nHello there\n"), expected: "text/x-mpsub"),
        // Office templates and slide shows.
        Case(name: "memo.stw", bytes: Samples.zipWithMimetype("application/vnd.sun.xml.writer.template"),
             expected: "application/vnd.sun.xml.writer.template"),
        Case(name: "memo.ott", bytes: Samples.zipWithMimetype("application/vnd.oasis.opendocument.text-template"),
             expected: "application/vnd.oasis.opendocument.text-template"),
        Case(name: "deck.ppsx", bytes: Samples.zipWithMimetype("x", more: [("[Content_Types].xml", Samples.text(
            "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"><Override PartName=\"/ppt/presentation.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml\"/></Types>"))]),
             expected: "application/vnd.openxmlformats-officedocument.presentationml.slideshow"),
        // A PDF with bytes before %PDF.
        Case(name: "paper.pdf", bytes: pdf, expected: "application/pdf"),
        Case(name: "paper", bytes: pdf, expected: "application/pdf"),
        // XML formats known by their root element.
        Case(name: "logo", bytes: Samples.text("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>\n"),
             expected: "image/svg+xml"),
        Case(name: "logo.xml", bytes: Samples.text("<?xml version=\"1.0\"?>\n<!-- drawn by hand -->\n<s:svg xmlns:s=\"http://www.w3.org/2000/svg\" width=\"4\"/>\n"),
             expected: "image/svg+xml"),
        Case(name: "news.xml", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel><title>News</title></channel>\n</rss>\n"),
             expected: "application/rss+xml"),
        Case(name: "news", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel><title>News</title></channel>\n</rss>\n"),
             expected: "application/rss+xml"),
        Case(name: "updates.xml", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n<title>Updates</title>\n</feed>\n"),
             expected: "application/atom+xml"),
        Case(name: "updates", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- generator: example -->\n<feed\n  xmlns=\"http://www.w3.org/2005/Atom\"><title>Updates</title></feed>\n"),
             expected: "application/atom+xml"),
        Case(name: "window.ui", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<interface>\n  <requires lib=\"gtk\" version=\"4.0\"/>\n  <object class=\"GtkWindow\" id=\"main\"/>\n</interface>\n"),
             expected: "application/x-gtk-builder"),
        Case(name: "dialog.ui", bytes: Samples.text("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ui version=\"4.0\">\n <class>Dialog</class>\n</ui>\n"),
             expected: "application/x-designer"),
        Case(name: "person.json", bytes: Samples.text("{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\"}\n"),
             expected: "application/schema+json"),
        Case(name: "person-data.json", bytes: Samples.text("{\"name\": \"Ada\", \"born\": 1815}\n"), expected: "application/json"),
        // PEM/DER certificates.
        Case(name: "server.pem", bytes: pem, expected: "application/x-x509-ca-cert"),
        Case(name: "server.crt", bytes: pem, expected: "application/x-x509-ca-cert"),
        Case(name: "server.der", bytes: der, expected: "application/x-x509-ca-cert"),
        Case(name: "server.cer", bytes: pem, expected: "application/pkix-cert"),
        // Zip- and gzip-based office formats.
        Case(name: "photo.kra", bytes: Samples.zipWithMimetype("application/x-krita"), expected: "application/x-krita"),
        Case(name: "photo", bytes: Samples.zipWithMimetype("application/x-krita"), expected: "application/x-krita"),
        Case(name: "letter.kwd", bytes: Samples.zipWithMimetype("application/x-kword"), expected: "application/x-kword"),
        Case(name: "old-letter.kwd", bytes: koffice, expected: "application/x-kword"),
        Case(name: "old-letter", bytes: koffice, expected: "application/x-kword"),
        // X bitmaps and pixmaps.
        Case(name: "icon.xbm", bytes: Samples.text("#define icon_width 8\n#define icon_height 2\nstatic unsigned char icon_bits[] = {\n   0xff, 0x00 };\n"),
             expected: "image/x-xbitmap"),
        Case(name: "icon", bytes: Samples.text("#define icon_width 8\n#define icon_height 2\nstatic unsigned char icon_bits[] = {\n   0xff, 0x00 };\n"),
             expected: "image/x-xbitmap"),
        Case(name: "icon.xpm", bytes: Samples.text("/* XPM */\nstatic char * icon_xpm[] = {\n\"2 1 2 1\",\n\"a c #000000\",\n\"b c #FFFFFF\",\n\"ab\"};\n"),
             expected: "image/x-xpixmap"),
        Case(name: "icon2", bytes: Samples.text("/* XPM */\nstatic char * icon_xpm[] = {\n\"2 1 2 1\",\n\"a c #000000\",\n\"b c #FFFFFF\",\n\"ab\"};\n"),
             expected: "image/x-xpixmap"),
        // Ogg by codec.
        Case(name: "song.ogg", bytes: vorbis, expected: "audio/x-vorbis+ogg"),
        Case(name: "song", bytes: vorbis, expected: "audio/x-vorbis+ogg"),
        Case(name: "voice.opus", bytes: opus, expected: "audio/x-opus+ogg"),
        Case(name: "voice.ogg", bytes: opus, expected: "audio/x-opus+ogg"),
        Case(name: "clip.ogg", bytes: theora, expected: "video/x-theora+ogg"),
        Case(name: "clip.ogv", bytes: theora, expected: "video/x-theora+ogg"),
        Case(name: "lossless.oga", bytes: flacOgg, expected: "audio/x-flac+ogg"),
        // AIFF-C, which libmagic calls AIFF; shared-mime-info's rule reads the form type.
        Case(name: "sound.aifc", bytes: Samples.text("FORM") + [0, 0, 0, 0x40] + Samples.text("AIFCFVER") + [0, 0, 0, 4, 0xA2, 0x80, 0x51, 0x40]
             + Samples.text("COMM") + [0, 0, 0, 0x18, 0, 1] + Array(repeating: 0, count: 40), expected: "audio/x-aifc"),
        // Java classes.
        Case(name: "Main.class", bytes: [0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x3D, 0x00, 0x1D, 0x0A, 0x00, 0x02, 0x00, 0x03, 0x07]
             + Array(repeating: 0x01, count: 100), expected: "application/x-java"),
        Case(name: "Main", bytes: [0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x3D, 0x00, 0x1D, 0x0A, 0x00, 0x02, 0x00, 0x03, 0x07]
             + Array(repeating: 0x01, count: 100), expected: "application/x-java"),
        // Types newer than Debian 12's database.
        Case(name: "Dockerfile", bytes: Samples.text("FROM debian:12\nRUN apt-get update\n"), expected: "text/x-dockerfile"),
        Case(name: "Containerfile", bytes: Samples.text("FROM debian:12\n"), expected: "text/x-dockerfile"),
        Case(name: "default.nix", bytes: Samples.text("{ pkgs ? import <nixpkgs> {} }:\npkgs.hello\n"), expected: "text/x-nix"),
        Case(name: "flow.puml", bytes: Samples.text("@startuml\nAlice -> Bob: hello\n@enduml\n"), expected: "text/x-plantuml"),
        Case(name: "flow", bytes: Samples.text("' a diagram\n@startuml\nAlice -> Bob: hello\n@enduml\n"), expected: "text/x-plantuml"),
        Case(name: "meson.build", bytes: Samples.text("project('x', 'c')\nexecutable('x', 'x.c')\n"), expected: "text/x-meson"),
        Case(name: "meson.options", bytes: Samples.text("option('docs', type: 'boolean', value: false)\n"), expected: "text/x-meson"),
        Case(name: "robots.txt", bytes: Samples.text("User-agent: *\nDisallow: /private/\n"), expected: "text/x-robots"),
        Case(name: "hello.nim", bytes: Samples.text("echo \"Hello\"\n"), expected: "text/x-nim"),
        Case(name: "app.slint", bytes: Samples.text("export component App inherits Window {\n  Text { text: \"hi\"; }\n}\n"), expected: "text/x-slint"),
        Case(name: "install.ps1", bytes: Samples.text("Write-Host \"Installing\"\n"), expected: "application/x-powershell"),
        Case(name: "board.dts", bytes: Samples.text("/dts-v1/;\n/ {\n  model = \"board\";\n};\n"), expected: "text/x-devicetree-source"),
    ]

    @Test("Each failure class is classified by its content, whatever the name", arguments: cases)
    func failureClass(_ c: Case) throws {
        let classifier = try Classifier()
        let result = classifier.classify(bytes: c.bytes, fileName: c.name, describe: true)
        let got = result.mimeType.map { classifier.registry.canonicalMIMEType($0) }
        #expect(got == classifier.registry.canonicalMIMEType(c.expected),
                "\(c.name): \(result.reason) — shared-mime-info \(result.shared.map { "\($0.typeName): \($0.source)" } ?? "-"), libmagic \(result.magic?.mimeType ?? "-")")
    }

    @Test("An OLE2 directory far beyond the first 64 KiB is read from the file")
    func compoundFileBeyondPrefix() throws {
        let dir = try TemporaryDirectory()
        let classifier = try Classifier()
        let bytes = Samples.compoundFile([("PowerPoint Document", Array(repeating: 3, count: 9000))], padding: 300_000)
        #expect(bytes.count > 300_000)
        for name in ["big.ppt", "big"] {
            let path = try dir.write(name, bytes: bytes)
            let result = classifier.classify(FilePath(path))
            #expect(result.mimeType == "application/vnd.ms-powerpoint", "\(name): \(result.reason)")
            #expect(result.shared?.source == .compoundFile(stream: "PowerPoint Document"))
        }
    }

    @Test("A damaged OLE2 directory (loops, out-of-range sectors, truncation) gives no stream evidence and no crash")
    func damagedCompoundFile() throws {
        let classifier = try Classifier()
        var looping = Self.powerPoint
        // Point the FAT entry of the directory sector at itself: a chain that never ends.
        let directory = Int(UInt32(looping[0x30]) | UInt32(looping[0x31]) << 8)
        let fatOffset = 512 + 4 * directory
        looping.replaceSubrange(fatOffset..<(fatOffset + 4), with: [UInt8(directory), 0, 0, 0])
        #expect(CompoundFile.identify(prefix: looping) { _, _ in nil }?.mimeType == "application/vnd.ms-powerpoint")
        var wild = Self.powerPoint
        wild.replaceSubrange(0x30..<0x34, with: [0xF0, 0xFF, 0xFF, 0x7F])
        #expect(CompoundFile.identify(prefix: wild) { _, _ in nil } == nil)
        let truncated = Array(Self.powerPoint.prefix(700))
        #expect(CompoundFile.identify(prefix: truncated) { _, _ in nil } == nil)
        for cut in stride(from: 512, to: Self.works.count, by: 97) {
            _ = classifier.classify(bytes: Array(Self.works.prefix(cut)), fileName: "cut.wps")
        }
    }
}
