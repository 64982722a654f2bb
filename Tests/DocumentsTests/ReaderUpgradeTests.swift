import DocumentModel
import Documents
import Engine
import Foundation
import Index
import SystemPackage
import Testing
import TestSupport

/// An index made by older readers: after an upgrade, the files a new or changed reader
/// concerns are read again — and only those.
@Suite("Reader upgrades")
struct ReaderUpgradeTests {
    @Test("A type that gains a reader, and a reader whose revision rises, have their files read again")
    func upgrade() throws {
        let dir = try TemporaryDirectory()
        let root = dir.path + "/root"
        _ = try dir.write("root/notes.rtf", #"{\rtf1\ansi {\info{\title Okapi}}The okapi is shy.\par}"#)
        _ = try dir.write("root/page.7", ".TH OKAPI 7\n.SH NAME\nokapi \\- a forest giraffe\n")
        _ = try dir.write("root/plain.txt", "an ordinary kettle")
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        func documentType(_ name: String) throws -> String? {
            try index.file(at: Array((root + "/" + name).utf8))?.documentType
        }
        func run(_ groups: [DocumentGroup]) throws -> IndexSummary {
            try Indexer(index: index, documents: DocumentRegistry(groups: groups), workers: 1).run(roots: [FilePath(root)])
        }
        let all = BuiltInDocuments.groups
        // The "old" Docent: no RTF reader, the man page reader at an older revision.
        let old = all.filter { $0.documentTypeName != "RTFDocument" }.map { $0.documentTypeName == "ManPageDocument" ? $0.revision(0) : $0 }
        #expect(try run(old).indexed == 3)
        #expect(try documentType("notes.rtf") != "RTFDocument")
        #expect(try run(old).indexed == 0, "the same readers: nothing read again")

        let upgraded = try run(all)
        #expect(upgraded.indexed == 2, "the RTF file (a new reader) and the man page (a new revision); not the text file")
        #expect(try documentType("notes.rtf") == "RTFDocument" && documentType("page.7") == "ManPageDocument")
        #expect(try run(all).indexed == 0)
    }
}
