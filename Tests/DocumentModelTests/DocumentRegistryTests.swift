import ContentTypes
import DocumentModel
import Documents
import Engine
import Foundation
import Synchronization
import SystemPackage
import Testing
import TestSupport

/// A third-party document type, written the way a SwiftUI developer would: an application
/// log format that conforms to `public.plain-text`.
struct AppLogDocument: FileDocument, DocumentMetadataProviding {
    static let logType = UTType("com.example.app-log")!
    static var readableContentTypes: [UTType] { [logType] }
    static var writableContentTypes: [UTType] { [.plainText] }

    var entries: [(level: String, message: String)]

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        entries = String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    var metadata: DocumentMetadata {
        DocumentMetadata(fields: [MetadataField(key: "Errors", value: .integer(entries.filter { $0.level == "ERROR" }.count))])
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(entries.map(\.message).joined(separator: "\n").utf8))
    }
}

@Suite("DocumentGroup registry")
struct DocumentRegistryTests {
    /// A type registry with the log type declared in a user file, as a third party would ship it.
    func typesWithLogDeclared(in dir: TemporaryDirectory) throws -> UTTypeRegistry {
        let declarations = try dir.write("config/content-types.yaml", """
            - identifier: com.example.app-log
              conformsTo: [public.plain-text]
              description: application log
              extensions: [applog]
            """)
        let types = UTTypeRegistry.load(mimeDirectories: SharedMIMEInfo.defaultDirectories(), userFiles: [declarations])
        #expect(types.diagnostics.isEmpty)
        return types
    }

    @Test("A third-party type wins over the built-in plain-text viewer for its files")
    func thirdPartyTypeWins() async throws {
        let dir = try TemporaryDirectory()
        let types = try typesWithLogDeclared(in: dir)
        let registry = DocumentRegistry {
            BuiltInDocuments.groups  // declared first: specificity, not order, decides
            DocumentGroup(viewing: AppLogDocument.self) { configuration in
                Title("Application log")
                Table(header: ["Level", "Message"], rows: configuration.document.entries.map { [$0.level, $0.message] })
            }
        }
        let log = try dir.write("server.applog", "INFO started\nERROR disk full\n")
        let loader = try DocumentLoader(documents: registry, types: types)
        let prepared = try loader.prepare(FilePath(log))
        #expect(prepared.classification.contentType.identifier == "com.example.app-log")
        #expect(prepared.selection?.group.documentTypeName == "DocumentModelTests.AppLogDocument")
        #expect(prepared.selection?.distance == 0)
        let document = try await prepared.open(in: registry)
        #expect(document.metadata["Errors"] == .integer(1))
        #expect(document.preview().elements.contains(.table(header: ["Level", "Message"], rows: [["INFO", "started"], ["ERROR", "disk full"]])))
        #expect(try await document.plainText() == "started\ndisk full")

        // Without the log viewer, the same file goes to plain text through conformance.
        let builtIn = try DocumentLoader(documents: BuiltInDocuments.registry, types: types).prepare(FilePath(log))
        #expect(builtIn.selection?.group.documentTypeName == "PlainTextDocument")
        #expect(builtIn.selection?.readableType == .plainText)
        #expect(builtIn.selection?.distance == 1)
        // And a .txt file still goes to plain text with the log viewer registered.
        let text = try dir.write("notes.txt", "hello")
        #expect(try loader.prepare(FilePath(text)).selection?.group.documentTypeName == "PlainTextDocument")
    }

    @Test("Ties go to the group declared first; builder conditions work")
    func tiesAndBuilder() throws {
        let includeSecond = true
        let registry = DocumentRegistry {
            PlainTextDocument.group
            if includeSecond { DocumentGroup(viewing: SourceCodeDocument.self) { _ in Text("second") } }
            for group in [GenericDocument.group] { group }
        }
        #expect(registry.groups.map(\.documentTypeName) == ["PlainTextDocument", "SourceCodeDocument", "GenericDocument"])
        let swift = UTType.swiftSource
        #expect(registry.candidates(for: swift).map(\.group.documentTypeName) == ["SourceCodeDocument", "PlainTextDocument", "GenericDocument"])
        let twice = DocumentRegistry {
            DocumentGroup(viewing: PlainTextDocument.self) { _ in Text("first") }
            DocumentGroup(viewing: PlainTextDocument.self) { _ in Text("second") }
        }
        #expect(twice.selection(for: .plainText)?.order == 0)
    }

    @Test("Editing groups are accepted and open read-only")
    func editingGroupIsReadOnly() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("a.txt", "text")
        let registry = DocumentRegistry {
            DocumentGroup(newDocument: try! PlainTextDocument(configuration: .init(
                contentType: .plainText, file: FileWrapper(regularFileWithContents: Data())))) { configuration in
                Text(configuration.isEditable ? "editable" : "read-only")
            }
        }
        let document = try await open(path, documents: registry)
        #expect(document.preview().elements == [.text("read-only")])
    }
}

/// A reference document: a shared, lock-protected list of notes.
final class NotesDocument: ReferenceFileDocument, Sendable {
    static var readableContentTypes: [UTType] { [.plainText] }
    typealias Snapshot = [String]
    let notes: Mutex<[String]>

    init(configuration: ReadConfiguration) throws {
        let text = String(decoding: configuration.file.regularFileContents ?? Data(), as: UTF8.self)
        notes = Mutex(text.split(separator: "\n").map(String.init))
    }

    func append(_ note: String) { notes.withLock { $0.append(note) } }
    func snapshot(contentType: UTType) throws -> [String] { notes.withLock { $0 } }
    func fileWrapper(snapshot: [String], configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(snapshot.joined(separator: "\n").utf8))
    }
}

/// A reader written with a SwiftUI habit: its export hands back `existingFile` when there is
/// one, and makes a text rendition otherwise.
struct HabitDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.json] }
    static var writableContentTypes: [UTType] { [.json, .plainText] }
    var keys: [String]
    init(configuration: ReadConfiguration) throws { keys = try Self.keys(in: configuration) }
    /// The top-level keys of the JSON object in the file, sorted.
    static func keys(in configuration: ReadConfiguration) throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: configuration.file.regularFileContents ?? Data())
        return ((object as? [String: Any])?.keys.sorted()) ?? []
    }
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        if let existing = configuration.existingFile { return existing }
        return FileWrapper(regularFileWithContents: Data(keys.joined(separator: " ").utf8))
    }
}

@Suite("WriteConfiguration.existingFile")
struct ExistingFileTests {
    @Test("existingFile is the file only for a rendition of the file's own type")
    func onlyForItsOwnType() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("data.json", #"{"zebra": 1, "aardvark": 2}"#)
        let registry = DocumentRegistry { DocumentGroup(viewing: HabitDocument.self) { _ in Text("") } }
        let opened = try await open(path, documents: registry)
        #expect(try await opened.export(as: .plainText).regularFileContents == Data("aardvark zebra".utf8))
        #expect(try await opened.export(as: .json).regularFileContents == Data(#"{"zebra": 1, "aardvark": 2}"#.utf8))
    }
}

@Suite("ReferenceFileDocument and OpenDocumentAction")
struct ReferenceDocumentTests {
    @Test("A snapshot is unaffected by later changes to the live document")
    func snapshotIsolation() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("notes.txt", "first\nsecond")
        let live = Mutex<NotesDocument?>(nil)
        let registry = DocumentRegistry {
            DocumentGroup(viewing: NotesDocument.self) { configuration in
                let _ = live.withLock { $0 = configuration.document }
                Text(configuration.document.notes.withLock { $0.joined(separator: ", ") })
            }
        }
        let opened = try await open(path, documents: registry)
        #expect(opened.preview().elements == [.text("first, second")])
        let document = try #require(live.withLock { $0 })

        let snapshot = try document.snapshot(contentType: .plainText)
        document.append("third")
        let written = try document.fileWrapper(snapshot: snapshot, configuration: .init(contentType: .plainText, existingFile: nil))
        #expect(written.regularFileContents == Data("first\nsecond".utf8))
        // The opened document exports from a fresh snapshot: the live change shows there.
        #expect(try await opened.export(as: .plainText).regularFileContents == Data("first\nsecond\nthird".utf8))
        #expect(opened.preview().elements == [.text("first, second, third")])
    }

    @Test("Opening a URL that is already open returns the open document, until the file changes")
    func openDocumentAction() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("a.txt", "one")
        let loads = Mutex(0)
        let openDocument = OpenDocumentAction { url in
            loads.withLock { $0 += 1 }
            return try await open(url.path)
        }
        let url = URL(fileURLWithPath: path)
        async let a = openDocument.document(at: url)
        async let b = openDocument.document(at: url)
        let (first, second) = try await (a, b)
        #expect(first === second)
        #expect(loads.withLock { $0 } == 1)
        #expect(try await openDocument.document(at: url) === first)

        try dir.write("a.txt", "changed, and longer")
        let reopened = try await openDocument.document(at: url)
        #expect(reopened !== first)
        #expect(try await reopened.plainText() == "changed, and longer")
        openDocument.close(url)
        #expect(openDocument.openURLs.isEmpty)
    }
}

/// Opens a file through the engine's loader with `documents`.
func open(_ path: String, documents: DocumentRegistry = BuiltInDocuments.registry) async throws -> OpenedDocument {
    let loader = try DocumentLoader(documents: documents)
    return try await loader.prepare(FilePath(path)).open(in: documents)
}

/// A reader written SwiftUI's way: JSON read, nothing said about renditions.
struct SeedJSONDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.json] }
    var keys: [String]
    init(configuration: ReadConfiguration) throws { keys = try HabitDocument.keys(in: configuration) }
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: try JSONSerialization.data(withJSONObject: keys))
    }
}

@Suite("A reader with no text rendition of its own")
struct DefaultTextRenditionTests {
    @Test("Writable types left to their default, none text: the preview's words are its text")
    func previewStandsIn() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("data.json", #"{"okapi": 1, "quokka": 2}"#)
        let registry = DocumentRegistry {
            DocumentGroup(viewing: SeedJSONDocument.self) { file in
                Title("Keys")
                Table(header: ["key"], rows: file.document.keys.map { [$0] })
                Note("a note about reading, not words of the file")
            }
        }
        let opened = try await open(path, documents: registry)
        #expect(try await opened.plainText() == "Keys\nkey\nokapi\nquokka")
    }

    @Test("No built-in reader leans on it: each one's text is its own rendition, or it has none on purpose")
    func builtInsUnchanged() {
        for group in BuiltInDocuments.groups where group.previewIsDefaultText {
            #expect(group.writableContentTypes.contains { $0.conforms(to: .plainText) }, "\(group.documentTypeName)")
        }
    }
}
