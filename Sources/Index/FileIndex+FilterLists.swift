import Foundation
import GRDB

/// Filter lists: the rows of each extension and content type held by many files, sorted, as
/// one blob — what `ext:md` or `type:pdf` tests a search's matches against (`docent_among`,
/// `docent_top`'s `among`) without reading the index on the extension or the type row by row.
///
/// At a million files `ext:md` is 53,878 rows: read from the index on the extension through a
/// statement step each, they took 11–16 ms of a 60 ms search (0.7 ms on the bench corpus). A
/// list is made in the ranked lists' round (`RankedLists`), from the same snapshot as the
/// length codes, for each value held by at least `minimumRows` and at most
/// `FileIndex.fewFiles` files (more, and the filter is tested row by row anyway). It stays
/// exact as files change as the ranked lists do: the rows written since (`ranked_changes`)
/// are taken out of it and those of them that hold the value now put back; past
/// `RankedLists.changesLooked` rows changed, the index is read as before.
enum FilterLists {
    /// Files a value needs for a list.
    static let minimumRows = 10_000

    static let schema = """
        CREATE TABLE ranked_filters (
            kind TEXT NOT NULL, value TEXT NOT NULL, asOf INTEGER NOT NULL, ids BLOB NOT NULL,
            PRIMARY KEY (kind, value)
        ) WITHOUT ROWID
        """

    /// What a list filters on: its kind as stored, and the expression of `files` it compares.
    enum Kind: String, CaseIterable, Sendable {
        case `extension`
        case type

        var expression: String {
            switch self {
            case .extension: FileIndex.extensionExpression
            case .type: "contentType"
            }
        }
    }

    /// A list made: its rows as `docent_sorted_ids` gives them.
    struct Made: Sendable {
        var kind: Kind
        var value: String
        var ids: Data
    }
}

extension FileIndex {
    /// Every list of values held by `minimumRows` to `fewFiles` files, from the snapshot `db` reads.
    static func makeFilterLists(_ db: Database, minimumRows: Int = FilterLists.minimumRows) throws -> [FilterLists.Made] {
        var made: [FilterLists.Made] = []
        for kind in FilterLists.Kind.allCases {
            let values = try String.fetchAll(db, sql: """
                SELECT value FROM (SELECT \(kind.expression) AS value, count(*) AS rows FROM files GROUP BY 1)
                WHERE value IS NOT NULL AND rows BETWEEN ? AND ?
                """, arguments: [minimumRows, fewFiles])
            for value in values {
                let ids = try Data.fetchOne(db, sql: "SELECT docent_sorted_ids(id) FROM files WHERE \(kind.expression) = ?", arguments: [value])
                made.append(.init(kind: kind, value: value, ids: ids ?? Data()))
            }
        }
        return made
    }

    /// Stores a round's lists in place of the last round's (inside its write).
    static func storeFilterLists(_ made: [FilterLists.Made], asOf: Int64, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM ranked_filters")
        for list in made {
            try db.execute(sql: "INSERT INTO ranked_filters (kind, value, asOf, ids) VALUES (?, ?, ?, ?)",
                           arguments: [list.kind.rawValue, list.value, asOf, list.ids])
        }
    }

    /// The rows whose `kind` is one of `values`, sorted, from the lists when each value has
    /// one and few enough rows changed since; nil to read the index instead.
    static func listedRows(_ db: Database, kind: FilterLists.Kind, values: [String]) throws -> [Int64]? {
        guard !values.isEmpty else { return nil }
        var sets: [[Int64]] = []
        var asOf = Int64.max
        for value in values {
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT asOf, ids FROM ranked_filters WHERE kind = ? AND value = ?"),
                                             arguments: [kind.rawValue, value])
            else { return nil }
            asOf = min(asOf, row["asOf"])
            sets.append(ids(row["ids"]))
        }
        guard let changed = try rowsChanged(db, since: asOf) else { return nil }
        var rows = sets.count == 1 ? sets[0] : sets.flatMap { $0 }.sorted()
        if !changed.isEmpty {
            // The rows written since: out, and back in when they hold one of the values now.
            let gone = Set(changed)
            rows.removeAll(where: gone.contains)
            let now = try Int64.fetchAll(db, sql: """
                SELECT id FROM files WHERE id IN (\(placeholders(changed.count))) AND \(kind.expression) IN (\(placeholders(values.count)))
                """, arguments: StatementArguments(changed.map { $0 as any DatabaseValueConvertible } + values.map { $0 as any DatabaseValueConvertible }))
            rows = (rows + now).sorted()
        }
        return rows
    }
}
