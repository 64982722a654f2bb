import DocentKit
import Engine
import Foundation
import SystemPackage
import Testing
import TestSupport
import UniformTypeIdentifiers  // as on Apple platforms

/// Viewer code as a SwiftUI developer writes it from memory: `$document`, the document
/// configuration, `import UniformTypeIdentifiers`.
struct Memo: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }
    var text: String
    init(configuration: ReadConfiguration) throws {
        text = String(decoding: configuration.file.regularFileContents ?? Data(), as: UTF8.self)
    }
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(text.utf8))
    }
}

/// A reference document as written on Apple platforms: an ObservableObject class with
/// `@Published` state, neither Sendable nor locked by its author.
final class Journal: ReferenceFileDocument {
    static var readableContentTypes: [UTType] { [UTType(exportedAs: "com.example.journal", conformingTo: .plainText)] }
    @Published var entries: [String]

    required init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        entries = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func snapshot(contentType: UTType) throws -> [String] { entries }

    func fileWrapper(snapshot: [String], configuration: WriteConfiguration) throws -> FileWrapper {
        objectWillChange.send()  // habit: harmless here
        return FileWrapper(regularFileWithContents: Data(snapshot.reversed().joined(separator: "\n").utf8))
    }
}

/// A "view" taking a binding, as SwiftUI views do.
func memoView(_ text: Binding<String>) -> [PreviewElement] { [.text(text.wrappedValue)] }

@Suite("SwiftUI habits compile and behave")
struct SwiftUIHabitsTests {
    @Test("$document is a read-only binding (with member bindings); documentConfiguration says read-only")
    func bindings() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("memo.txt", "buy milk")
        let registry = DocumentRegistry {
            DocumentGroup(viewing: Memo.self) { configuration in
                memoView(configuration.$document.text)
                Text(configuration.$document.wrappedValue.text.uppercased())
                Text(configuration.documentConfiguration.fileURL?.lastPathComponent ?? "?")
                Text(configuration.documentConfiguration.isEditable || configuration.isEditable ? "editable" : "read-only")
            }
        }
        let loader = try DocumentLoader(documents: registry)
        let opened = try await loader.prepare(FilePath(path)).open(in: registry)
        #expect(opened.preview().elements == [.text("buy milk"), .text("BUY MILK"), .text("memo.txt"), .text("read-only")])
        #expect(UTType.plainText.conforms(to: .text))  // UniformTypeIdentifiers' UTType
    }

    @Test("An ObservableObject reference document with @Published state opens, previews and exports")
    func observableReferenceDocument() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("days.journal", "monday\ntuesday")
        let journal = UTType(exportedAs: "com.example.journal", conformingTo: .plainText)
        let registry = DocumentRegistry {
            DocumentGroup(viewing: Journal.self) { configuration in
                Title("\(configuration.document.entries.count) entries")
                List(items: configuration.document.entries.map { [.text($0)] })
            }
        }
        let loader = try DocumentLoader(documents: registry)
        let prepared = try loader.prepare(FilePath(path))
        // No declaration for .journal is loaded here: open it as the journal type by hand.
        let configuration = FileDocumentReadConfiguration(contentType: journal, file: prepared.configuration.file)
        let opened = try await registry.open(configuration)
        #expect(opened.preview().elements.first == .title("2 entries"))
        #expect(try await opened.plainText() == "tuesday\nmonday")
    }

    @Test("OpenDocumentAction in SwiftUI's shape: made without a loader, called for its effect; the same file stays one document")
    func openDocumentAction() async throws {
        let dir = try TemporaryDirectory()
        let url = URL(fileURLWithPath: try dir.write("list.txt", "eggs"))
        let openDocument = OpenDocumentAction()
        try await openDocument(at: url)  // as written for SwiftUI: no result used
        #expect(openDocument.openURLs == [url.standardizedFileURL])
        let first = try await openDocument.document(at: url), again = try await openDocument.document(at: url)
        #expect(first === again && first.documentTypeName == "PlainTextDocument")
    }
}
