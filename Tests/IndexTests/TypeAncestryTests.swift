import Foundation
@testable import Index
import Testing
import TestSupport

@Suite("FileIndex: recorded type conformance for type: filters")
struct TypeAncestryTests {
    @Test("Answered from the index only when every type it holds is recorded; unknown identifiers are left to the registry")
    func ancestry() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        try index.upsert([
            file("/r/a.swift", "let a = 1", type: "public.swift-source", inode: 1),
            file("/r/b.txt", "b", type: "public.plain-text", inode: 2),
            file("/r/c.md", "c", type: "net.daringfireball.markdown", inode: 3),
        ])
        #expect(Set(try index.contentTypesWithoutAncestry()) == ["public.swift-source", "public.plain-text", "net.daringfireball.markdown"])
        #expect(try index.contentTypes(conformingTo: "public.text") == nil)  // nothing recorded yet

        try index.recordTypeAncestry([
            "public.swift-source": ["public.source-code", "public.plain-text", "public.text", "public.data"],
            "public.plain-text": ["public.text", "public.data"],
        ])
        #expect(try index.contentTypesWithoutAncestry() == ["net.daringfireball.markdown"])
        #expect(try index.contentTypes(conformingTo: "public.text") == nil)  // Markdown's is still unknown

        try index.recordTypeAncestry(["net.daringfireball.markdown": ["public.plain-text", "public.text", "public.data"]])
        #expect(try index.contentTypes(conformingTo: "public.text") == ["public.swift-source", "public.plain-text", "net.daringfireball.markdown"])
        #expect(try index.contentTypes(conformingTo: "public.source-code") == ["public.swift-source"])
        #expect(try index.contentTypes(conformingTo: "public.swift-source") == ["public.swift-source"])  // itself
        #expect(try index.contentTypes(conformingTo: "com.example.no-such-type") == nil)

        // Recording a type again replaces what it conformed to.
        try index.recordTypeAncestry(["public.swift-source": ["public.data"]])
        #expect(try index.contentTypes(conformingTo: "public.text") == ["public.plain-text", "net.daringfireball.markdown"])
    }

    @Test("quick_check passes on an index with conformance recorded (SQLite 3.40's false NULL in a WITHOUT ROWID table)")
    func quickCheckPasses() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        try index.upsert([file("/r/a.swift", "let a = 1", type: "public.swift-source", inode: 1)])
        try index.recordTypeAncestry(["public.swift-source": ["public.source-code", "public.plain-text", "public.text", "public.data"]])
        try index.check(thorough: false)
        try index.check(thorough: true)
    }
}
