import DocumentModel
import Foundation
public import GRDB

/// What a persistent-store viewer is given: the store's records, as SwiftData's
/// `DocumentGroup(viewing:contentType:)` gives a model container.
public struct StoreDocumentConfiguration<Model> {
    /// The records of `Model`'s table, in the table's order (at most the group's `limit`).
    public let records: [Model]
    /// How many rows the table holds (more than `records.count` when it was cut).
    public let count: Int
    /// The store's file, as SwiftUI's configurations give it.
    public let fileURL: URL?
    /// The content type the store was classified as.
    public let contentType: UTType
    /// Always false: Docent opens stores read-only.
    public var isEditable: Bool { false }
}

extension DocumentGroup {
    /// A group for a persistent-store format — SwiftData's `DocumentGroup(viewing:contentType:viewer:)`
    /// brought to Linux: `Model` is a GRDB record type, `contentType` a store format declared
    /// like any other (conforming to `org.sqlite.sqlite3`). The store is opened read-only and
    /// immutable (no journal, WAL or lock file is made, the file is left byte for byte as it
    /// was), in the helper process under the budgets. Each record's values are part of the
    /// document's indexed text; the viewer is given the records.
    ///
    /// ```swift
    /// struct Recipe: FetchableRecord, TableRecord, Decodable { var name: String; var steps: String }
    ///
    /// DocumentGroup(viewing: Recipe.self, contentType: UTType(exportedAs: "com.example.recipes")) { store in
    ///     Title("\(store.count) recipes")
    ///     Table(header: ["Recipe"], rows: store.records.map { [$0.name] })
    /// }
    /// ```
    public init<Model: FetchableRecord & TableRecord>(
        viewing model: Model.Type, contentType: UTType, limit: Int = 10_000,
        @PreviewBuilder viewer: @escaping @Sendable (StoreDocumentConfiguration<Model>) -> [PreviewElement]
    ) {
        let table = Model.databaseTableName
        let group = DocumentGroup(named: DocumentGroup.name(of: model), readableContentTypes: [contentType], detail: "store table \(table) limit \(limit)") { configuration in
            guard let path = configuration.file.fileURL?.path else { throw CocoaError(.fileReadNoSuchFile) }
            var options = Configuration()
            options.readonly = true
            // A URI (Debian's SQLite takes them in every file name): immutable, so SQLite
            // makes no -wal, -shm or -journal beside the user's store and takes no lock.
            let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))) ?? path
            let queue = try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: options)
            defer { try? queue.close() }
            let (rows, count) = try queue.read { db in
                (try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) LIMIT ?", arguments: [limit]),
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0)
            }
            let records = try rows.map { try Model(row: $0) }
            // The text: each record a line of its values that read as text or numbers.
            let text = rows.map { row in
                row.databaseValues.compactMap { value -> String? in
                    switch value.storage {
                    case .string(let string): string
                    case .int64(let number): String(number)
                    case .double(let number): String(number)
                    case .blob, .null: nil
                    }
                }.joined(separator: " ")
            }.joined(separator: "\n")
            let store = StoreDocumentConfiguration(records: records, count: count, fileURL: configuration.file.fileURL,
                                                   contentType: configuration.contentType)
            var metadata = DocumentMetadata()
            metadata.fields = [MetadataField(key: "Records", value: .integer(count))]
            if count > rows.count {
                metadata.fields.append(MetadataField(key: "Read", value: .text("the first \(rows.count)")))
            }
            return RuntimeRendition(metadata: metadata, preview: viewer(store), plainText: text)
        }
        self = group.isolated()
    }
}

/// GRDB's record protocols, for store documents with `import DocentKit` alone (GRDB's own
/// `Table` would clash with the preview's `Table` if all of GRDB came with it).
public typealias FetchableRecord = GRDB.FetchableRecord
/// GRDB's `TableRecord`: a record's table (`databaseTableName`), with `import DocentKit` alone.
public typealias TableRecord = GRDB.TableRecord
