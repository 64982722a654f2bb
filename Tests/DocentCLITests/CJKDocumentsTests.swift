import Foundation
import Testing
import TestSupport

/// Chinese, Japanese and Korean documents that Debian ships (translated man pages and the
/// Korean Debian FAQ: `.ci/run` installs manpages-zh, manpages-ja and debian-faq-ko), each
/// found by a word from inside a sentence, through `docent index` and `docent search`.
@Suite("CJK documents, end to end")
struct CJKDocumentsTests {
    let dir: TemporaryDirectory
    let env: [String: String]
    var root: String { dir.path + "/tree" }

    static let documents = [
        "/usr/share/man/zh_CN/man1/ls.1.gz": "ls.zh_CN.1.gz",       // 列出目录内容 …
        "/usr/share/man/ja/man1/ls.1.gz": "ls.ja.1.gz",             // ファイルの情報を一覧表示します …
        "/usr/share/doc/debian/FAQ/ko/basic-defs.ko.html": "basic-defs.ko.html",  // 자유 소프트웨어를 …
    ]

    init() throws {
        dir = try TemporaryDirectory()
        env = ["XDG_DATA_HOME": dir.path + "/data"]
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func copyDocuments() throws {
        for (source, name) in Self.documents {
            try #require(FileManager.default.fileExists(atPath: source), "\(source) (see .ci/run)")
            try FileManager.default.copyItem(atPath: source, toPath: root + "/" + name)
        }
    }

    func search(_ query: String) throws -> [String] {
        let r = try Docent.run(["search", query, "--files"], environment: env)
        #expect(r.status == 0 || r.status == 1, "\(query): \(r.stderr)")
        return r.stdout.split(separator: "\n").map { String($0.dropFirst(root.count + 1)) }.sorted()
    }

    @Test("A Chinese, a Japanese and a Korean document are each found by words from inside their sentences, and not by words they lack", arguments: [
        // (word, the file that holds it): 2, 3 and 4 characters, each glued to others in the text.
        ("目录", "ls.zh_CN.1.gz"), ("排序", "ls.zh_CN.1.gz"), ("文件列表", "ls.zh_CN.1.gz"),
        ("一覧", "ls.ja.1.gz"), ("ファイル", "ls.ja.1.gz"), ("表示しない", "ls.ja.1.gz"),
        ("자유", "basic-defs.ko.html"), ("데비안", "basic-defs.ko.html"), ("프로젝트", "basic-defs.ko.html"),
        ("网络", nil), ("ネットワーク", nil), ("네트워크", nil), ("录目", nil),
    ] as [(String, String?)])
    func realDocuments(word: String, holder: String?) throws {
        try copyDocuments()
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        #expect(try search(word) == (holder.map { [$0] } ?? []), "\(word)")
    }

    @Test("The snippet on a terminal marks the CJK word itself")
    func marked() throws {
        try copyDocuments()
        #expect(try Docent.run(["index", root], environment: env).status == 0)
        let out = try Docent.run(["search", "目录"], environment: env).stdout
        #expect(out.contains("列出[目录]内容"), "\(out)")
        let korean = try Docent.run(["search", "자유"], environment: env).stdout
        #expect(korean.contains("[자유]"), "\(korean)")
    }

    @Test("An index made before the CJK tokenizer is migrated: its stored texts are tokenized again, no file read again, and the wait said")
    func migrated() throws {
        // An index in the schema's first version with one Chinese text, whose file is not on
        // disk: only the stored text can make it found.
        let index = dir.path + "/data/docent/index.sqlite"
        try FileManager.default.createDirectory(atPath: dir.path + "/data/docent", withIntermediateDirectories: true)
        try writeFirstVersionIndex(at: index, rows: """
            c.execute('INSERT INTO files VALUES (1, ?, ?, ?, 1, 1, 10, 0, 0, "public.plain-text", NULL, NULL, NULL, NULL, NULL, NULL, 0)',
                      (b'\(root)/ls.txt', b'\(root)', 'ls.txt'))
            c.execute('INSERT INTO files_fts (rowid, name, title, body, meta, parts) VALUES (1, "ls.txt", "", ?, "", "")',
                      ('ls 列出目录内容 and more',))
            """)
        // The first command to open it says why it waits, once.
        let first = try Docent.run(["search", "目录", "--files"], environment: env)
        #expect(first.stderr.contains("updating the index at \(index) to this version"), "\(first.stderr)")
        #expect(try Docent.run(["search", "目录", "--files"], environment: env).stderr.isEmpty)
        #expect(try search("目录") == ["ls.txt"])
        #expect(try search("ls") == ["ls.txt"])
        #expect(try search("录目").isEmpty)
    }
}
