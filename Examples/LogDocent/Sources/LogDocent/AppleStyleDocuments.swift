// Document types written as Apple's documentation writes them, with `import DocentKit` where
// Apple's code says `import SwiftUI`, and nothing else: `Data`, `CocoaError` and `URL` come
// with it, as Foundation comes with SwiftUI and UniformTypeIdentifiers on Apple's platforms.
import DocentKit
import Synchronization
import UniformTypeIdentifiers

/// A value-type document: Apple's `TextFile`.
struct TextFile: FileDocument {
    static let readableContentTypes: [UTType] = [UTType(exportedAs: "com.example.memo", conformingTo: .plainText)]

    var text = ""

    init(initialText: String = "") {
        text = initialText
    }

    init(configuration: ReadConfiguration) throws {
        if let data = configuration.file.regularFileContents {
            text = String(decoding: data, as: UTF8.self)
        } else {
            throw CocoaError(.fileReadCorruptFile)
        }
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let data = Data(text.utf8)
        return FileWrapper(regularFileWithContents: data)
    }
}

/// A reference document as on Apple's platforms: an `ObservableObject` class with
/// `@Published` state and a `String` snapshot; its export writes the text in capitals.
final class JournalDocument: ReferenceFileDocument {
    typealias Snapshot = String

    static let readableContentTypes: [UTType] = [UTType(exportedAs: "com.example.journal", conformingTo: .plainText)]

    @Published var text: String

    init(text: String = "") {
        self.text = text
    }

    required init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents,
              let string = String(data: data, encoding: .utf8)
        else {
            throw CocoaError(.fileReadCorruptFile)
        }
        text = string
    }

    func snapshot(contentType: UTType) throws -> String {
        text.uppercased()
    }

    func fileWrapper(snapshot: String, configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(snapshot.utf8))
    }
}

/// A reference document that is `Sendable` by keeping its state in a `Mutex`.
final class BlobDocument: ReferenceFileDocument, Sendable {
    struct Storage {
        var bytes: Data
        var source: URL?
    }

    static let readableContentTypes: [UTType] = [UTType(exportedAs: "com.example.blob", conformingTo: .data)]

    let storage: Mutex<Storage>

    required init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadNoSuchFile) }
        storage = Mutex(Storage(bytes: data, source: nil))
    }

    var count: Int { storage.withLock { $0.bytes.count } }

    func snapshot(contentType: UTType) throws -> Data {
        storage.withLock { $0.bytes }
    }

    func fileWrapper(snapshot: Data, configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: snapshot)
    }
}
