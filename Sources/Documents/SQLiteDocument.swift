import CSQLite
public import ContentTypes
public import DocumentModel
import Foundation

/// A SQLite database — the persistent store a document-based app saves — viewed: its tables
/// and views with their row counts and schema.
///
/// Opened strictly read-only and `immutable` (a read-only URI), so no journal, WAL or lock
/// file is ever created beside the user's database. Runs isolated (in the helper process):
/// a damaged database is an untrusted file like any other, and counting rows takes time.
public struct SQLiteDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("org.sqlite.sqlite3") ?? .data] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// A table, view, index or trigger.
    public struct Object: Sendable {
        /// `table`, `view`, `index` or `trigger`.
        public var type: String
        /// Its name.
        public var name: String
        /// The SQL that made it.
        public var sql: String?
        /// Rows, for tables (nil when they could not be counted).
        public var rows: Int?
    }

    /// The schema's objects, tables first.
    public let objects: [Object]
    /// The database's page size in bytes.
    public let pageSize: Int?
    /// What could not be read.
    public let problems: [DocumentProblem]

    public init(configuration: ReadConfiguration) throws {
        guard let path = configuration.file.filePath?.string else { throw DocumentReadError("a database is read from disk") }
        // The database is read from the file as it was opened for classifying it, mapped
        // (never the path again: SQLite would open it a second time, perhaps another file by
        // then). One larger than the read limit is opened by SQLite, immutable, by its path.
        let file = try? configuration.file.readOnlyFile()
        let mapped = file.flatMap { file in
            (try? configuration.file.mappedContents()).flatMap { $0.count == Int(file.status.size) ? $0 : nil }
        }
        var database: OpaquePointer?
        let opened: Int32
        if let mapped {
            opened = sqlite3_open_v2(":memory:", &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK
                ? mapped.withUnsafeBytes { bytes in
                    // READONLY: SQLite never writes to the buffer (a read-only mapping) nor frees it.
                    sqlite3_deserialize(database, "main", UnsafeMutablePointer(mutating: bytes.bindMemory(to: UInt8.self).baseAddress),
                                        Int64(bytes.count), Int64(bytes.count), UInt32(SQLITE_DESERIALIZE_READONLY))
                }
                : SQLITE_CANTOPEN
        } else {
            let uri = "file:" + Self.escaped(path) + "?immutable=1"
            opened = sqlite3_open_v2(uri, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        }
        guard opened == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(database)
            throw DocumentReadError("not a readable SQLite database: \(message)")
        }
        // The mapping outlives the connection that reads it.
        defer { withExtendedLifetime(mapped) { _ = sqlite3_close(database) } }
        var problems: [DocumentProblem] = []
        var objects: [Object] = []
        do {
            for row in try Self.query(database, "SELECT type, name, sql FROM sqlite_master ORDER BY type DESC, name") {
                objects.append(Object(type: row[0] ?? "?", name: row[1] ?? "?", sql: row[2], rows: nil))
            }
        } catch {
            throw DocumentReadError("not a readable SQLite database: \(error)")
        }
        for index in objects.indices where objects[index].type == "table" {
            let quoted = "\"" + objects[index].name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            do {
                objects[index].rows = try Self.integer(database, "SELECT count(*) FROM \(quoted)")
            } catch {
                problems.append(DocumentProblem(.warning, kind: .unreadableTable, "\(objects[index].name): \(error)"))
            }
        }
        self.objects = objects
        self.pageSize = try? Self.integer(database, "PRAGMA page_size")
        self.problems = problems
    }

    /// A URI path: the characters a URI gives meaning to, escaped.
    static func escaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7F...: out += String(format: "%%%02X", byte)
            default: out.unicodeScalars.append(UnicodeScalar(byte))
            }
        }
        return out
    }

    struct SQLiteError: Error, CustomStringConvertible {
        var description: String
    }

    /// The first column of the first row, as a number.
    static func integer(_ database: OpaquePointer, _ sql: String) throws -> Int? {
        guard let rows = try query(database, sql).first, let first = rows.first, let value = first else { return nil }
        return Int(value)
    }

    /// Every row of `sql`'s result, as text.
    static func query(_ database: OpaquePointer, _ sql: String) throws -> [[String?]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteError(description: String(cString: sqlite3_errmsg(database)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[String?]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw SQLiteError(description: String(cString: sqlite3_errmsg(database))) }
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(problems: problems)
        metadata.append("Tables", .integer(objects.filter { $0.type == "table" }.count))
        metadata.append("Views", .integer(objects.filter { $0.type == "view" }.count))
        metadata.append("Indexes", .integer(objects.filter { $0.type == "index" }.count))
        metadata.append("Rows", .integer(objects.compactMap(\.rows).reduce(0, +)))
        metadata.append("Page size", pageSize.map { .integer($0) })
        return metadata
    }

    /// Names and schema: what a search for a table or column should find.
    public var text: String {
        objects.map { [$0.type + " " + $0.name, $0.sql].compactMap { $0 }.joined(separator: "\n") }.joined(separator: "\n\n")
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: SQLiteDocument.self) { configuration in
            let document = configuration.document
            Metadata(document.metadata.fields)
            Note.problems(document.problems)
            Table(header: ["Table", "Rows"], rows: document.objects.filter { $0.type == "table" }.map { [$0.name, $0.rows.map(String.init) ?? "?"] })
            let views = document.objects.filter { $0.type == "view" }
            if !views.isEmpty { List(items: views.map { [.text("view " + $0.name)] }) }
            CodeBlock(document.objects.compactMap(\.sql).joined(separator: ";\n") + ";", language: "sql")
        }
        .isolated()
    }
}
