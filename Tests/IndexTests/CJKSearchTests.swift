import Foundation
import GRDB
import CSnippet
@testable import Index
import Testing
import TestSupport

/// The `docent` tokenizer: Han, Kana and Hangul runs as overlapping bigrams, everything else
/// as `porter unicode61` made it, and the snippets that must count and mark its tokens.
@Suite("CJK: words inside sentences found as bigrams")
struct CJKSearchTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/data/docent/index.sqlite")
        try index.upsert([
            file("/r/zh.txt", "列出指定文件的信息。如果没有指定排序方式，则按字母排序项目。", inode: 1),
            file("/r/ja.txt", "ファイルの情報を一覧表示します。デフォルトは現在のディレクトリです。", inode: 2),
            file("/r/ko.txt", "데비안 프로젝트는 자유 소프트웨어를 만드는 사람들의 모임입니다.", inode: 3),
            file("/r/mixed.txt", "The Swift言語 compiler runs on Linuxでも. Tokyo is 東京。大阪 is Osaka.", inode: 4),
        ])
    }

    /// The files `query` (Docent's query language, words only) finds.
    func found(_ query: String) throws -> [String] {
        try index.search(SearchRequest(match: try SearchQuery.parse(query).match, limit: 50)).map(\.displayPath).sorted()
    }

    func snippet(_ query: String) throws -> String {
        try #require(try index.search(SearchRequest(match: try SearchQuery.parse(query).match, limit: 1)).first).snippet
            .replacingOccurrences(of: SearchHit.matchStart, with: "[").replacingOccurrences(of: SearchHit.matchEnd, with: "]")
    }

    func expectMarked(_ query: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let got = try snippet(query)
        #expect(got.contains(expected), "\(query): \(got)", sourceLocation: sourceLocation)
    }

    @Test("Words of 2, 3 and 4 characters from inside a sentence are found, in each script", arguments: [
        ("文件", "/r/zh.txt"), ("排序方式", "/r/zh.txt"), ("字母", "/r/zh.txt"), ("文件的", "/r/zh.txt"),
        ("一覧", "/r/ja.txt"), ("ディレクトリ", "/r/ja.txt"), ("現在", "/r/ja.txt"), ("情報を", "/r/ja.txt"),
        ("자유", "/r/ko.txt"), ("프로젝트", "/r/ko.txt"), ("소프트웨어", "/r/ko.txt"), ("모임", "/r/ko.txt"),
    ])
    func inside(word: String, path: String) throws {
        #expect(try found(word) == [path], "\(word)")
    }

    @Test("Words a text does not hold are not found, even when its characters are all there apart",
          arguments: ["网络", "文信", "件文", "ネットワーク", "覧一", "네트워크", "자모", "京大"])
    func absent(word: String) throws {
        #expect(try found(word).isEmpty, "\(word)")
    }

    @Test("The snippet marks the word itself, not the bigrams around it")
    func marks() throws {
        try expectMarked("文件", "出指定[文件]的信息")  // three bigrams before it: three characters
        try expectMarked("一覧", "情報を[一覧]表示します")
        try expectMarked("자유", "로젝트는 [자유] 소프트웨어를")
        try expectMarked("排序方式", "指定[排序方式]，")
        try expectMarked("文件 OR 信息", "指定[文件]的[信息]。")
        // Two matches that overlap (字母排 and 母排序) are one marked stretch.
        try expectMarked("字母排 OR 母排序", "按[字母排序]项目")
    }

    @Test("Mixed scripts: Latin words stemmed and folded as before, CJK beside them in bigrams, runs ended by punctuation")
    func mixed() throws {
        #expect(try found("swift") == ["/r/mixed.txt"])
        #expect(try found("言語") == ["/r/mixed.txt"])
        #expect(try found("linux") == ["/r/mixed.txt"])
        #expect(try found("run") == ["/r/mixed.txt"])        // porter: runs → run
        #expect(try found("東京") == ["/r/mixed.txt"])
        #expect(try found("大阪") == ["/r/mixed.txt"])
        try expectMarked("言語", "Swift[言語] compiler")
        try expectMarked("linux", "[Linux]でも")
    }

    @Test("One character is found wherever it stands: at a bigram's start, or last in its run")
    func oneCharacter() throws {
        #expect(try found("文") == ["/r/zh.txt"])
        #expect(try found("覧") == ["/r/ja.txt"])   // 覧表
        #expect(try found("式") == ["/r/zh.txt"])   // last in 排序方式，
        #expect(try found("す") == ["/r/ja.txt"])   // last in 表示します。
        #expect(try found("자") == ["/r/ko.txt"])
        #expect(try found("网").isEmpty)
        #expect(try found("ディレ*") == ["/r/ja.txt"])
    }

    @Test("A long Chinese text stored in blocks: each of 60 markers between CJK runs has its own neighbours, and a CJK word deep in it is marked")
    func longText() throws {
        // About 1 MB of sentences, a line break after each (blocks end at ASCII separators),
        // markers glued to the CJK on both sides.
        let sentence = "列出指定文件的信息。如果没有指定排序方式，则按字母排序项目。\n"
        var body = ""
        for n in 0..<60 {
            body += String(repeating: sentence, count: 190)
            body += "第\(n)段信息mark\(n)q列出\n"
        }
        body += "最后的深处词汇在这里。\n"
        try index.upsert([file("/r/long-zh.txt", body, inode: 9)])
        #expect(try index.read { db in try Data.fetchOne(db, sql: "SELECT body FROM texts WHERE id = (SELECT id FROM files WHERE name = 'long-zh.txt')")?.first } == 2)
        for n in 0..<60 {
            try expectMarked("mark\(n)q", "段信息[mark\(n)q]列出")
        }
        try expectMarked("深处", "最后的[深处]词汇在这里")
    }

    @Test("The tokenizer's offsets stay inside the text and in order, and the snippet counts its tokens exactly, on 3,000 texts of mixed scripts and broken UTF-8")
    func selfCheck() throws {
        // Pieces of every kind the tokenizer meets, joined at random, some cut mid-character.
        let pieces: [[UInt8]] = ["東京都", "ファイル", "데비안은", "ー", "々", "𠀋𡈽", "Swift", "naïve", "Ωmega", " ", "。", "、", "\n", "-", "🙂",
                                 "ｶﾀｶﾅ", "ﾞ", "x", "42", "\u{00A0}", "İ", "ß",
                                 "\u{0301}", "e\u{0301}", "\u{200D}", "\u{3000}"].map { Array($0.utf8) }
            + [[0xE6, 0x9D], [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]]
        var state: UInt64 = 0x2026_1123
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        try index.read { db in
            for round in 0..<3000 {
                var text: [UInt8] = []
                for _ in 0..<(1 + next() % 40) { text += pieces[next() % pieces.count] }
                let problem = text.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        docent_tokenizer_check(UnsafeMutableRawPointer(db.sqliteConnection), $0.baseAddress, Int32($0.count))
                    }
                }
                #expect(problem == 0, "round \(round): \(problem) on \(text)")
                if problem != 0 { break }
            }
        }
    }
}

