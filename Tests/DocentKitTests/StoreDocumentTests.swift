import DocentKit
import Engine
import Foundation
import GRDB
import SystemPackage
import Testing
import TestSupport

/// A record type as a SwiftData model would be: here a GRDB record.
struct Recipe: FetchableRecord, TableRecord, Decodable {
    static let databaseTableName = "recipe"
    var name: String
    var steps: String
    var minutes: Int
}

@Suite("Persistent-store documents: DocumentGroup(viewing: Record.self, contentType:)")
struct StoreDocumentTests {
    @Test("The records are the store's text and its viewer's input; the database is left byte for byte as it was")
    func recordsViewedReadOnly() async throws {
        let dir = try TemporaryDirectory()
        let declarations = try dir.write("config/content-types.yaml", """
            - identifier: com.example.recipes
              conformsTo: [org.sqlite.sqlite3]
              description: recipe box
              extensions: [recipes]
            """)
        let types = UTTypeRegistry.load(mimeDirectories: SharedMIMEInfo.defaultDirectories(), userFiles: [declarations])
        #expect(types.diagnostics.isEmpty)
        // A store in WAL mode, as an app leaves it: the immutable open must not replay or make a log.
        let store = dir.path + "/kitchen.recipes"
        let script = """
            import sqlite3
            c = sqlite3.connect('\(store)')
            c.execute('PRAGMA journal_mode=WAL')
            c.execute('CREATE TABLE recipe (id INTEGER PRIMARY KEY, name TEXT, steps TEXT, minutes INTEGER)')
            c.executemany('INSERT INTO recipe (name, steps, minutes) VALUES (?, ?, ?)', [
                ('Tarte tatin', 'caramelise the apples, lay the pastry, bake upside down', 60),
                ('Shakshuka', 'simmer peppers and tomatoes, poach the eggs in them', 25),
            ])
            c.commit(); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()
            """
        #expect(try runTool("/usr/bin/python3", ["-c", script]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let namesBefore = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()

        let kind = try #require(UTType("com.example.recipes", registry: types))
        let registry = DocumentRegistry {
            DocumentGroup(viewing: Recipe.self, contentType: kind) { store in
                Title("\(store.count) recipes")
                Table(header: ["Recipe", "Minutes"], rows: store.records.map { [$0.name, String($0.minutes)] })
            }
            BuiltInDocuments.groups
        }
        let loader = try DocumentLoader(documents: registry, types: types)
        let opened = try await loader.prepare(FilePath(store)).open(in: registry)
        #expect(opened.contentType.identifier == "com.example.recipes")
        #expect(opened.documentTypeName == "DocentKitTests.Recipe")
        #expect(opened.preview().elements.contains(.title("2 recipes")))
        #expect(opened.preview().elements.contains(.table(header: ["Recipe", "Minutes"], rows: [["Tarte tatin", "60"], ["Shakshuka", "25"]])))
        let text = try #require(try await opened.plainText())
        #expect(text.contains("caramelise the apples") && text.contains("poach the eggs") && text.contains("Shakshuka"))

        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "the store changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == namesBefore, "a file appeared beside the store")
    }
}
