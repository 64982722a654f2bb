import DocentKit
import Engine
import Foundation
import Testing

/// A third party's document type with the seed's own example name, which the built-in PDF
/// reader also has.
struct PDFDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.pdf] }
    init(configuration: ReadConfiguration) throws {}
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { FileWrapper(regularFileWithContents: Data()) }
}

/// The pieces of a `DocentApp`, as a SwiftUI developer writes them.
struct NoteDocument: FileDocument {
    static var readableContentTypes: [UTType] { [UTType(exportedAs: "com.example.kit-note", conformingTo: .plainText)] }
    var text: String
    init(configuration: ReadConfiguration) throws {
        text = String(decoding: configuration.file.regularFileContents ?? Data(), as: UTF8.self)
    }
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(text.utf8))
    }
}

struct NoteApp: DocentApp {
    var withMarkdown = true
    var body: some DocumentScene {
        DocumentGroup(viewing: NoteDocument.self) { file in
            Title("Note")
            Text(file.document.text)
        }
        if withMarkdown {
            MarkdownDocument.group
        }
    }
}

@Suite("DocentApp: a body of document groups, in front of the built-in ones")
struct DocentAppTests {
    @Test("The body lists its groups in order, with conditions")
    func body() {
        #expect(NoteApp().body.documentGroups.map(\.documentTypeName) == ["DocentKitTests.NoteDocument", "MarkdownDocument"])
        var app = NoteApp()
        app.withMarkdown = false
        #expect(app.body.documentGroups.map(\.documentTypeName) == ["DocentKitTests.NoteDocument"])
    }

    @Test("UTType(exportedAs:conformingTo:) undeclared: keeps its identifier and conforms as written")
    func exportedAsUndeclared() {
        let type = UTType(exportedAs: "com.example.kit-note", conformingTo: .plainText)
        #expect(type.identifier == "com.example.kit-note")
        #expect(!type.isDeclared && !type.isDynamic)
        #expect(type.conforms(to: .plainText) && type.conforms(to: .text) && type.conforms(to: .data))
        #expect(!type.conforms(to: .image))
        let imported = UTType(importedAs: "org.example.other")
        #expect(imported.identifier == "org.example.other" && imported.conforms(to: imported) && !imported.conforms(to: .data))
        // Declared: the declaration wins, as Apple's does.
        #expect(UTType(exportedAs: "public.json", conformingTo: .data) == .json)
        #expect(UTType(exportedAs: "public.json").conforms(to: .text))
    }

    @Test("A group is named by its module unless built in: an app's PDFDocument is not the built-in one")
    func qualifiedNames() {
        let mine = DocumentGroup(viewing: PDFDocument.self) { _ in Text("mine") }
        #expect(mine.documentTypeName == "DocentKitTests.PDFDocument")
        #expect(DocentKit.PDFDocument.group.documentTypeName == "PDFDocument")
        #expect(AppDocuments.registry.fingerprints["PDFDocument"] == DocentKit.PDFDocument.group.fingerprint)
    }

    @Test("Registered groups come first; the built-in ones follow, and the registry holds both")
    func registration() {
        AppDocuments.register(NoteApp().body.documentGroups, servesHelper: false)
        defer { AppDocuments.register([], servesHelper: false) }
        let names = AppDocuments.groups.map(\.documentTypeName)
        #expect(names.first == "DocentKitTests.NoteDocument")
        #expect(names.contains("PDFDocument") && names.last == "GenericDocument")
        #expect(AppDocuments.registry.fingerprints["DocentKitTests.NoteDocument"] != nil)
    }
}
