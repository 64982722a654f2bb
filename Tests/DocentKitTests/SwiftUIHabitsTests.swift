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
}
