import GRDB

/// The conformance of the content types the index holds, recorded by the indexer, so a
/// `type:` filter needs no type registry: building one (the shared-mime-info database, the
/// declarations) took longer than the rest of a search process.
extension FileIndex {
    /// Records, for each content type in `ancestry`, the types it conforms to (itself
    /// included), replacing what was recorded for it.
    public func recordTypeAncestry(_ ancestry: [String: [String]]) throws(IndexError) {
        guard !ancestry.isEmpty else { return }
        try write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM type_ancestry WHERE type = ?")
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO type_ancestry (type, ancestor) VALUES (?, ?)")
            for (type, ancestors) in ancestry {
                try delete.execute(arguments: [type])
                for ancestor in Set(ancestors + [type]) { try insert.execute(arguments: [type, ancestor]) }
            }
        }
    }

    /// The distinct content types of the rows as a `types(type)` table, one probe of the index
    /// on `contentType` a type (a loose index scan): DISTINCT, or NOT IN over the rows, read
    /// every row's entry — 40 ms of each `type:` search at a million files, for a hundred types.
    /// Its last row is NULL.
    static let distinctTypes = """
        WITH RECURSIVE types(type) AS (
            SELECT min(contentType) FROM files
            UNION ALL
            SELECT (SELECT min(contentType) FROM files WHERE contentType > types.type) FROM types WHERE types.type IS NOT NULL
        )
        """

    /// The content types held by some row whose conformance is not recorded.
    public func contentTypesWithoutAncestry() throws(IndexError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                \(Self.distinctTypes)
                SELECT type FROM types WHERE type IS NOT NULL AND type NOT IN (SELECT type FROM type_ancestry)
                """)
        }
    }

    /// Which of `types` have their conformance recorded (an indexed lookup, for the few
    /// types of one batch).
    public func typesWithAncestry(among types: Set<String>) throws(IndexError) -> Set<String> {
        guard !types.isEmpty else { return [] }
        return try read { db in
            let placeholders = Array(repeating: "?", count: types.count).joined(separator: ", ")
            return Set(try String.fetchAll(db, sql: "SELECT DISTINCT type FROM type_ancestry WHERE type IN (\(placeholders))",
                                           arguments: StatementArguments(Array(types))))
        }
    }

    /// The content types in the index that conform to `identifier`; nil when that cannot be
    /// answered from the index alone (a type whose conformance is not recorded, or an
    /// identifier no recorded type conforms to — which may be a type with no files, or no type).
    public func contentTypes(conformingTo identifier: String) throws(IndexError) -> Set<String>? {
        try read { db in
            let unrecorded = try Bool.fetchOne(db, sql: """
                \(Self.distinctTypes)
                SELECT EXISTS (SELECT 1 FROM types WHERE type IS NOT NULL AND type NOT IN (SELECT type FROM type_ancestry))
                """) ?? true
            guard !unrecorded else { return nil }
            let types = try String.fetchAll(db, sql: "SELECT type FROM type_ancestry WHERE ancestor = ?", arguments: [identifier])
            return types.isEmpty ? nil : Set(types)
        }
    }
}
