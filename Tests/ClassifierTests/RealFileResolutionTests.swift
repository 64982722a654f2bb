import Foundation
import SystemPackage
import TestSupport
import Testing
@testable import Classifier
@testable import ContentTypes

/// Resolution over real files from this machine's packages: Debian's docs, icons, fonts,
/// man pages, binaries, and the Python standard library and test data that ship here.
@Suite("Classification of real files")
struct RealFileResolutionTests {
    static let py = "/root/.pyenv/versions/3.13.0/lib/python3.13"
    static let site = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages"

    static let cases: [(path: String, expected: String)] = [
        ("/usr/share/common-licenses/GPL-3", "public.plain-text"),
        ("/etc/passwd", "public.plain-text"),
        ("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", "com.adobe.pdf"),
        ("/usr/share/man/man1/ls.1.gz", "org.gnu.gnu-zip-archive"),
        ("/usr/bin/ls", "public.unix-executable"),
        ("/usr/lib/x86_64-linux-gnu/libmagic.so.1.0.0", "io.docent.elf-shared-library"),
        ("/usr/include/magic.h", "public.c-header"),
        ("/usr/share/mime/packages/freedesktop.org.xml", "public.xml"),
        ("/usr/share/icons/Adwaita/scalable/places/network-workgroup-symbolic.svg", "public.svg-image"),
        ("/usr/share/icons/locolor/16x16/apps/gvim.png", "public.png"),
        ("/usr/share/pixmaps/python3.11.xpm", "org.freedesktop.mime.image.x-xpixmap"),
        ("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", "public.truetype-ttf-font"),
        ("/usr/share/vim/vim90/print/mac-roman.ps", "com.adobe.postscript"),
        ("/usr/share/vim/vim90/lang/pl.UTF-8/LC_MESSAGES/vim.mo", "org.freedesktop.mime.application.x-gettext-translation"),
        ("/usr/share/vim/vim90/tutor/tutor.pl", "public.perl-script"),
        ("/usr/share/doc/git/contrib/persistent-https/main.go", "org.golang.go-source"),
        ("/usr/share/pandoc/data/translations/ru.yaml", "public.yaml"),
        ("/usr/share/pandoc/data/templates/default.rtf", "public.rtf"),
        ("/usr/share/pandoc/data/epub.css", "public.css"),
        ("/usr/share/gitweb/static/gitweb.js", "com.netscape.javascript-source"),
        ("/etc/xdg/autostart/xdg-user-dirs.desktop", "org.freedesktop.mime.application.x-desktop"),
        ("/usr/share/dpkg/sh/dpkg-error.sh", "public.shell-script"),
        ("/usr/bin/gunzip", "public.shell-script"),  // no extension: libmagic reads the #! line
        ("/usr/share/doc/base-passwd/users-and-groups.html", "public.html"),
        ("/usr/share/java/error-prone-annotation.jar", "com.sun.java-archive"),
        ("/opt/swift/usr/lib/swift/linux/Swift.swiftmodule/x86_64-unknown-linux-gnu.swiftinterface", "com.apple.dt.swift-module-interface"),
        ("/opt/swift/usr/lib/swift_static/_foundation_unicode/module.modulemap", "io.docent.clang-module-map"),
        (py + "/json/__init__.py", "public.python-script"),  // libmagic says text/plain or python; the name refines
        (py + "/__pycache__/abc.cpython-313.pyc", "org.python.python-bytecode"),
        (py + "/test/levenshtein_examples.json", "public.json"),
        (py + "/test/clinic.test.c", "public.c-source"),
        (py + "/test/test_cppext/extension.cpp", "public.c-plus-plus-source"),
        (py + "/test/archivetestdata/testtar.tar", "public.tar-archive"),
        (py + "/test/archivetestdata/testtar.tar.xz", "org.freedesktop.mime.application.x-xz-compressed-tar"),
        (py + "/test/archivetestdata/zipdir.zip", "public.zip-archive"),
        (py + "/test/archivetestdata/README.md", "net.daringfireball.markdown"),
        (py + "/test/test_email/data/python.bmp", "com.microsoft.bmp"),
        (py + "/test/test_email/data/python.webp", "org.webmproject.webp"),
        (py + "/test/test_email/data/python.tiff", "public.tiff"),
        (py + "/test/test_email/data/python.jpg", "public.jpeg"),
        (py + "/test/test_email/data/python.gif", "com.compuserve.gif"),
        (py + "/test/test_email/data/python.pgm", "org.freedesktop.mime.image.x-portable-graymap"),
        (py + "/test/test_email/data/sndhdr.au", "public.ulaw-audio"),
        (py + "/test/test_email/data/sndhdr.aiff", "public.aiff-audio"),
        (py + "/test/test_email/data/sndhdr.wav", "com.microsoft.waveform-audio"),
        // Mail saved as .txt: shared-mime-info calls message/rfc822 a kind of text/plain, so
        // between two texts the name wins (as it does for gio).
        (py + "/test/test_email/data/msg_01.txt", "public.plain-text"),
        (py + "/idlelib/Icons/idle.ico", "com.microsoft.ico"),
        (py + "/email/architecture.rst", "org.freedesktop.mime.text.x-rst"),
        (py + "/config-3.13-x86_64-linux-gnu/Makefile", "public.make-source"),
        (site + "/docutils/writers/odf_odt/styles.odt", "org.oasis-open.opendocument.text"),
        (site + "/numpy/random/tests/data/sfc64-testset-1.csv", "public.comma-separated-values-text"),
        (site + "/docutils/writers/latex2e/titlepage.tex", "org.tug.tex"),
        (site + "/networkx/algorithms/flow/tests/gl1.gpickle.bz2", "public.bzip2-archive"),
        ("/usr/lib/google-cloud-sdk/platform/gsutil/gslib/tests/test_data/test.mp3", "public.mp3"),
    ]

    /// Both paths must agree: the fast one (a name the bytes confirm skips libmagic) and the
    /// full one (libmagic always, as `docent info` does).
    @Test("Each real file resolves to its most specific type, over at least 40 distinct types",
          arguments: [false, true])
    func realFiles(fullEvidence: Bool) throws {
        let classifier = try Classifier(useNameConfirmation: !fullEvidence)
        var verified = Set<String>()
        var missing: [String] = []
        for (path, expected) in Self.cases {
            guard FileManager.default.fileExists(atPath: path) else {
                missing.append(path)
                continue
            }
            let result = classifier.classify(FilePath(path))
            #expect(result.contentType.identifier == expected, "\(path): \(result.reason)")
            #expect(result.error == nil, "\(path)")
            if result.contentType.identifier == expected { verified.insert(expected) }
        }
        // Office documents: Debian's pandoc-data ships the parts; zip (Info-ZIP) packs them.
        let dir = try TemporaryDirectory()
        for (name, expected) in [("reference.docx", "org.openxmlformats.wordprocessingml.document"),
                                 ("reference.pptx", "org.openxmlformats.presentationml.presentation"),
                                 ("reference.odt", "org.oasis-open.opendocument.text")] {
            guard let file = try OfficeSamples.pack(name, into: dir.path) else { missing.append(name); continue }
            let result = classifier.classify(FilePath(file))
            #expect(result.contentType.identifier == expected, "\(name): \(result.reason)")
            if result.contentType.identifier == expected { verified.insert(expected) }
            // The same bytes under a plain .zip name: the content is the more specific answer.
            let renamed = dir.path + "/" + name + ".zip"
            try FileManager.default.copyItem(atPath: file, toPath: renamed)
            #expect(classifier.classify(FilePath(renamed)).contentType.identifier == expected)
        }
        if !missing.isEmpty { print("skipped (not on this machine): \(missing)") }
        #expect(verified.count >= 40, "only \(verified.count) distinct types verified; missing samples: \(missing)")
    }
}

/// Office documents packed from the parts Debian's pandoc-data ships, with Info-ZIP's `zip`,
/// in the member order each format requires (`mimetype` first and stored for OpenDocument).
enum OfficeSamples {
    static func pack(_ name: String, into dir: String) throws -> String? {
        let parts = "/usr/share/pandoc/data/" + (name.hasSuffix(".docx") ? "docx" : name.hasSuffix(".pptx") ? "pptx" : "odt")
        guard FileManager.default.fileExists(atPath: parts), FileManager.default.fileExists(atPath: "/usr/bin/zip") else { return nil }
        let out = dir + "/" + name
        let script: String
        if name.hasSuffix(".odt") {
            script = "zip -q -X -0 '\(out)' mimetype && zip -q -X -r '\(out)' . -x mimetype"
        } else {
            script = "zip -q -X -r '\(out)' '[Content_Types].xml' . -x '[Content_Types].xml'"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: parts)
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? out : nil
    }
}
