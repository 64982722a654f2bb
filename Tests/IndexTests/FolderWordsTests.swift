import Foundation
@testable import Index
import Testing
import TestSupport

/// The folders a file is in as a field of the index: a project named only by its folder is
/// found beside the words of its text, a move takes the old folders' words away, and the
/// inverted index stays consistent with its content through it all.
@Suite("Folder words: the folders a file is in, searched")
struct FolderWordsTests {
    let dir: TemporaryDirectory
    let index: FileIndex

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/data/docent/index.sqlite")
    }

    /// The files holding every word of `query`.
    func paths(_ query: String) throws -> [String] {
        let words = query.split(separator: " ").map { FTSExpression.term(String($0)) }
        return try index.search(SearchRequest(match: words.count == 1 ? words[0] : .and(words), limit: 50)).map(\.displayPath)
    }

    @Test("The nearest four folders, space-separated; non-UTF-8 bytes replaced")
    func words() {
        #expect(FolderWords.words(ofParent: Array("/home/ann/src/gnuplot/htmldocs".utf8)) == "ann src gnuplot htmldocs")
        #expect(FolderWords.words(ofParent: Array("/notes".utf8)) == "notes")
        #expect(FolderWords.words(ofParent: Array("/".utf8)) == "")
        #expect(FolderWords.words(ofParent: Array("/a//b/".utf8)) == "a b")
        #expect(FolderWords.words(ofParent: [0x2F, 0x66, 0xFF, 0x6F]) == "f\u{FFFD}o")
    }

    @Test("A folder's name finds the files below it with the text's words; moves and removals re-index; the index stays consistent")
    func searchedAndMoved() throws {
        try index.upsert([
            file("/home/ann/docs/quillplot/reference/axes.html", "Axis scaling: set the logarithmic scale of an axis", title: "Axes", inode: 1),
            file("/home/ann/docs/other/axes.html", "Axis scaling: set the logarithmic scale of an axis", title: "Axes", inode: 2),
            file("/home/ann/docs/other/quill.txt", "quillplot draws logarithmic axis scales too", inode: 3),
        ])
        // The folder's word and a word of the text: only the file in that folder, or that says it.
        #expect(try Set(paths("quillplot logarithmic")) == ["/home/ann/docs/quillplot/reference/axes.html", "/home/ann/docs/other/quill.txt"])
        // Only the nearest four folders: `home` is four above the files in `other`, five above
        // `reference`'s.
        #expect(try Set(paths("home logarithmic")) == ["/home/ann/docs/other/axes.html", "/home/ann/docs/other/quill.txt"])
        // A folder's name alone finds the files below it.
        #expect(try paths("reference") == ["/home/ann/docs/quillplot/reference/axes.html"])
        // A match in the folders alone shows the body's start, unmarked.
        let hit = try index.search(SearchRequest(match: .term("reference"), limit: 1)).first
        #expect(hit?.snippet.hasPrefix("Axis scaling") == true && hit?.snippet.contains("[") == false, "\(String(describing: hit?.snippet))")

        // A folder moved: its words follow (and the old ones go) for every file below it.
        #expect(try index.moveTree(from: Array("/home/ann/docs/quillplot".utf8), to: Array("/home/ann/docs/gridplot".utf8)) == 1)
        #expect(try paths("quillplot logarithmic") == ["/home/ann/docs/other/quill.txt"])
        #expect(try paths("gridplot logarithmic") == ["/home/ann/docs/gridplot/reference/axes.html"])
        // One file moved.
        try index.move(from: Array("/home/ann/docs/other/axes.html".utf8), to: Array("/home/ann/docs/gridplot/axes.html".utf8))
        #expect(try Set(paths("gridplot axis")) == ["/home/ann/docs/gridplot/reference/axes.html", "/home/ann/docs/gridplot/axes.html"])
        // Removed: gone from every field.
        try index.remove([Array("/home/ann/docs/gridplot/axes.html".utf8)])
        #expect(try paths("gridplot axis") == ["/home/ann/docs/gridplot/reference/axes.html"])
        // The inverted index agrees with its content (FTS5's integrity check against the view).
        try index.check(thorough: true)
    }
}
