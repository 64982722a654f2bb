public import Foundation
public import Index

/// The roots, the reader and classifier fingerprints and the type conformance, as SQLite keeps
/// them (FileIndex+Roots, +Readers, +TypeAncestry), each host's own except the conformance.
extension PostgresIndex {
    public func addRoots(_ paths: [[UInt8]]) throws(IndexError) {
        try run(transaction: true) { connection throws(IndexError) in
            for path in paths {
                try connection.execute("INSERT INTO docent_roots (host, path) VALUES ($1, $2) ON CONFLICT DO NOTHING", [.text(host), .bytes(path)])
            }
        }
    }

    public func roots() throws(IndexError) -> [(path: [UInt8], lastIndexed: Date?)] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT path, last_indexed FROM docent_roots WHERE host = $1 ORDER BY path", [.text(host)])
            return (0..<rows.count).map { (rows.bytes($0, 0), rows.double($0, 1).map { Date(timeIntervalSince1970: $0) }) }
        }
    }

    public func markIndexed(_ root: [UInt8]) throws(IndexError) {
        try run(transaction: true) { connection throws(IndexError) in
            try connection.execute("UPDATE docent_roots SET last_indexed = $3 WHERE host = $1 AND path = $2",
                                   [.text(host), .bytes(root), .double(Date().timeIntervalSince1970)])
        }
    }

    private func meta(_ key: String) throws(IndexError) -> String? {
        try run { connection throws(IndexError) in
            try connection.execute("SELECT value FROM docent_meta WHERE host = $1 AND key = $2", [.text(host), .text(key)]).string(0, 0)
        }
    }

    private static func setMeta(_ connection: Connection, host: String, _ key: String, _ value: String) throws(IndexError) {
        try connection.execute("""
            INSERT INTO docent_meta (host, key, value) VALUES ($1, $2, $3) ON CONFLICT (host, key) DO UPDATE SET value = excluded.value
            """, [.text(host), .text(key), .text(value)])
    }

    public func readerFingerprints() throws(IndexError) -> [String: String]? {
        guard let json = try meta("readers") else { return nil }
        return try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))
    }

    public func contentTypes() throws(IndexError) -> [String] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT DISTINCT content_type FROM docent_files WHERE host = $1", [.text(host)])
            return (0..<rows.count).compactMap { rows.string($0, 0) }
        }
    }

    @discardableResult
    public func rereadRows(documentTypes: Set<String>, contentTypes: Set<String>, fingerprints: [String: String]) throws(IndexError) -> Int {
        let json = String(decoding: (try? JSONEncoder().encode(fingerprints)) ?? Data("{}".utf8), as: UTF8.self)
        return try run(transaction: true) { connection throws(IndexError) in
            var marked = 0
            for (column, values) in [("document_type", documentTypes), ("content_type", contentTypes)] where !values.isEmpty {
                marked += try connection.execute("""
                    UPDATE docent_files SET size = -1
                    WHERE host = $1 AND size >= 0 AND content_type != 'public.folder' AND \(column) = ANY($2::text[])
                    """, [.text(host), .text(Self.arrayLiteral(values.sorted()))]).changed
            }
            try Self.setMeta(connection, host: host, "readers", json)
            return marked
        }
    }

    public func classifierFingerprint() throws(IndexError) -> String? { try meta("classifier") }

    public func typedFiles(after path: [UInt8]?, limit: Int) throws(IndexError) -> [(path: [UInt8], contentType: String)] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT path, content_type FROM docent_files
                WHERE host = $1 AND path > $2 AND size >= 0 AND content_type != 'public.folder' ORDER BY path LIMIT $3
                """, [.text(host), .bytes(path ?? []), .int(Int64(limit))])
            return (0..<rows.count).map { (rows.bytes($0, 0), rows.string($0, 1) ?? "") }
        }
    }

    @discardableResult
    public func rereadRows(paths: [[UInt8]], classifierFingerprint fingerprint: String) throws(IndexError) -> Int {
        try run(transaction: true) { connection throws(IndexError) in
            var marked = 0
            for path in paths {
                marked += try connection.execute("UPDATE docent_files SET size = -1 WHERE host = $1 AND path = $2 AND size >= 0",
                                                 [.text(host), .bytes(path)]).changed
            }
            try Self.setMeta(connection, host: host, "classifier", fingerprint)
            return marked
        }
    }

    /// Conformance is shared by every host (a type's ancestors are the same everywhere):
    /// rows are added, never deleted under another host's feet.
    public func recordTypeAncestry(_ ancestry: [String: [String]]) throws(IndexError) {
        guard !ancestry.isEmpty else { return }
        try run(transaction: true) { connection throws(IndexError) in
            for (type, ancestors) in ancestry.sorted(by: { $0.key < $1.key }) {
                for ancestor in Set(ancestors + [type]).sorted() {
                    try connection.execute("INSERT INTO docent_type_ancestry (type, ancestor) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                                           [.text(type), .text(ancestor)])
                }
            }
        }
    }

    public func contentTypesWithoutAncestry() throws(IndexError) -> [String] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT DISTINCT content_type FROM docent_files
                WHERE host = $1 AND content_type NOT IN (SELECT type FROM docent_type_ancestry)
                """, [.text(host)])
            return (0..<rows.count).compactMap { rows.string($0, 0) }
        }
    }

    public func typesWithAncestry(among types: Set<String>) throws(IndexError) -> Set<String> {
        guard !types.isEmpty else { return [] }
        return try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT DISTINCT type FROM docent_type_ancestry WHERE type = ANY($1::text[])",
                                              [.text(Self.arrayLiteral(types.sorted()))])
            return Set((0..<rows.count).compactMap { rows.string($0, 0) })
        }
    }

    public func contentTypes(conformingTo identifier: String) throws(IndexError) -> Set<String>? {
        try run { connection throws(IndexError) in
            // The distinct content types by skipping through their index (one probe a type, not a
            // pass over every row: 6 ms of each `type:` search on the benchmark corpus).
            let unrecorded = try connection.execute("""
                WITH RECURSIVE types (type) AS (
                    (SELECT content_type FROM docent_files ORDER BY content_type LIMIT 1)
                    UNION ALL
                    SELECT (SELECT content_type FROM docent_files WHERE content_type > types.type ORDER BY content_type LIMIT 1)
                    FROM types WHERE types.type IS NOT NULL
                )
                SELECT EXISTS (SELECT 1 FROM types WHERE type IS NOT NULL AND type NOT IN (SELECT type FROM docent_type_ancestry))
                """).string(0, 0) == "t"
            guard !unrecorded else { return nil }
            let rows = try connection.execute("SELECT type FROM docent_type_ancestry WHERE ancestor = $1", [.text(identifier)])
            let types = Set((0..<rows.count).compactMap { rows.string($0, 0) })
            return types.isEmpty ? nil : types
        }
    }

    /// A PostgreSQL array literal of `values` (each double-quoted, `"` and `\` escaped), bound
    /// as one text parameter.
    static func arrayLiteral(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}

/// Statistics and the rows read back: the errors' list, one file by id or path, another host's stored text.
extension PostgresIndex {
    public func statistics() throws(IndexError) -> IndexStatistics {
        var statistics = IndexStatistics()
        let roots = try roots()
        try run { connection throws(IndexError) in
            statistics.bytesOnDisk = try connection.execute("""
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                WHERE c.relkind = 'r' AND c.relname LIKE 'docent\\_%'
                """).int(0, 0)
            var rows = try connection.execute("SELECT content_type, count(*) FROM docent_files GROUP BY content_type")
            for row in 0..<rows.count {
                statistics.contentTypes[rows.string(row, 0) ?? ""] = Int(rows.int(row, 1))
                statistics.files += Int(rows.int(row, 1))
            }
            rows = try connection.execute("SELECT error_kind, count(*) FROM docent_files WHERE error_kind IS NOT NULL GROUP BY error_kind")
            for row in 0..<rows.count { statistics.errorKinds[rows.string(row, 0) ?? ""] = Int(rows.int(row, 1)) }
            rows = try connection.execute("SELECT host, count(*) FROM docent_files GROUP BY host ORDER BY host")
            for row in 0..<rows.count { statistics.hosts[rows.string(row, 0) ?? ""] = Int(rows.int(row, 1)) }
            for root in roots {
                let (lower, upper) = FileIndex.subtreeRange(root.path)
                let counts = try connection.execute("""
                    SELECT count(*), count(error_kind) FROM docent_files WHERE host = $1 AND path >= $2 AND path < $3
                    """, [.text(host), .bytes(lower), .bytes(upper)])
                statistics.roots.append(RootStatistics(path: root.path, lastIndexed: root.lastIndexed,
                                                       files: Int(counts.int(0, 0)), errors: Int(counts.int(0, 1))))
            }
        }
        return statistics
    }

    static let rowColumns = """
        host, path, device, inode, size, modified, changed, content_type, document_type, title, metadata, evidence,
        error_kind, error_message, headings
        """

    private func file(_ rows: Connection.Result, _ row: Int) -> IndexedFile {
        var file = IndexedFile(path: rows.bytes(row, 1), device: rows.int(row, 2), inode: rows.int(row, 3), size: rows.int(row, 4),
                               modified: rows.int(row, 5), changed: rows.int(row, 6), contentType: rows.string(row, 7) ?? "",
                               documentType: rows.string(row, 8), title: rows.string(row, 9), metadata: rows.string(row, 10),
                               evidence: rows.string(row, 11), errorKind: rows.string(row, 12), errorMessage: rows.string(row, 13))
        file.headings = rows.string(row, 14)
        let host = rows.string(row, 0) ?? ""
        file.host = host == self.host ? nil : host
        return file
    }

    public func filesWithErrors(limit: Int?) throws(IndexError) -> [IndexedFile] {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT \(Self.rowColumns) FROM docent_files WHERE host = $1 AND error_kind IS NOT NULL ORDER BY path LIMIT $2
                """, [.text(host), limit.map { .int(Int64($0)) } ?? .null])
            return (0..<rows.count).map { file(rows, $0) }
        }
    }

    public func file(id: Int64) throws(IndexError) -> IndexedFile? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT \(Self.rowColumns) FROM docent_files WHERE id = $1", [.int(id)])
            return rows.count == 0 ? nil : file(rows, 0)
        }
    }

    public func file(at path: [UInt8]) throws(IndexError) -> IndexedFile? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT \(Self.rowColumns) FROM docent_files WHERE host = $1 AND path = $2",
                                              [.text(host), .bytes(path)])
            return rows.count == 0 ? nil : file(rows, 0)
        }
    }

    public func storedFile(host: String, path: [UInt8], textLimit: Int) throws(IndexError) -> (file: IndexedFile, text: String)? {
        try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT \(Self.rowColumns), left(body, $3) FROM docent_files WHERE host = $1 AND path = $2
                """, [.text(host), .bytes(path), .int(Int64(textLimit))])
            return rows.count == 0 ? nil : (file(rows, 0), rows.string(0, 15) ?? "")
        }
    }

    /// Rows of identical content among `ids` (every host's): the same size and the same text
    /// (its digest, v6: the texts themselves are never read).
    public func identicalGroups(among ids: [Int64]) throws(IndexError) -> [[Int64]] {
        guard ids.count > 1 else { return [] }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        let pairs: [(Int64, Int64)] = try run { connection throws(IndexError) in
            let rows = try connection.execute("""
                SELECT fa.id, fb.id FROM docent_files fa
                JOIN docent_files fb ON fb.size = fa.size AND fb.id != fa.id AND fb.digest = fa.digest
                WHERE fa.id = ANY($1::bigint[]) AND fb.id = ANY($1::bigint[]) AND fa.error_kind IS NULL AND fb.error_kind IS NULL
                  AND fa.digest != md5('')
                """, [.text(list)])
            return (0..<rows.count).map { (rows.int($0, 0), rows.int($0, 1)) }
        }
        return IdenticalHits.groups(ids, pairs: pairs)
    }

    public func storedText(id: Int64, limit: Int) throws(IndexError) -> String? {
        try run { connection throws(IndexError) in
            try connection.execute("SELECT left(body, $2) FROM docent_files WHERE id = $1", [.int(id), .int(Int64(limit))]).string(0, 0)
        }
    }
}

extension PostgresIndex {
    /// `VACUUM (ANALYZE)` of the files table: the planner's statistics (without them a search
    /// just after a cold index chose plans that read every match's vector: 260–300 ms for a
    /// common word), the visibility map, and the GIN index's pending list folded in (new
    /// entries wait there, scanned by every search, until a vacuum). Autovacuum would come to
    /// it in its own time.
    @discardableResult
    public func upkeepAfterLargeRun() throws(IndexError) -> Bool {
        try run { connection throws(IndexError) in try connection.execute("VACUUM (ANALYZE) docent_files") }
        return true
    }
}
