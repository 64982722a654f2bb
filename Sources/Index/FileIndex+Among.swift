import Foundation
import CSnippet
import GRDB

/// Filters over few files (`type:pdf`, `ext:md`) answered in memory: their rows come from an
/// index, and each match of the words is tested against them (`docent_among`) instead of
/// being looked up in `files` — the search stays on FTS5 alone, ranked top-k.
extension FileIndex {
    /// The most rows of a `type:` or `ext:` filter tested in memory (`docent_among`) rather
    /// than looked up in `files` match by match.
    static let fewFiles = 100_000

    /// The filters `docent_among` answers for a request.
    struct AmongFilters: OptionSet {
        let rawValue: Int
        static let types = AmongFilters(rawValue: 1)
        static let extensions = AmongFilters(rawValue: 2)
    }

    /// The name's last extension, folded (NULL without a dot): `rtrim` takes off every
    /// character but dots from the end, so what is left ends at the last dot.
    static let extensionExpression = "CASE WHEN instr(name, '.') > 0 THEN lower(substr(name, length(rtrim(name, replace(name, '.', ''))) + 1)) END"

    /// `extensionExpression` over `files` (a search joins tables with a `name` of their own);
    /// SQLite resolves the column before it compares the expression with the index's.
    static let filesExtension = extensionExpression.replacingOccurrences(of: "name", with: "files.name")

    /// Whether `folded` can be a name's last extension, as `extensionExpression` gives it:
    /// not empty, no dot.
    static func isLastExtension(_ folded: String) -> Bool { !folded.isEmpty && !folded.contains(".") }

    /// The one last extension every name a glob matches has (`*.md` → md); nil for any other glob.
    static func lastExtension(ofGlob glob: String) -> String? {
        guard glob.hasPrefix("*.") else { return nil }
        let last = String(glob.dropFirst(2))
        return isLastExtension(last) && !last.contains(where: { "*?[]".contains($0) }) ? last : nil
    }

    /// The names a glob can match lie in `lower ..< upper` (as SQLite compares text, by
    /// bytes): its characters before the first wildcard, and that start with its last byte
    /// raised by one. Nil when the glob starts with a wildcard (or the start cannot be raised).
    static func literalRange(ofGlob glob: String) -> (String, String)? {
        var start = Array(glob.utf8.prefix { $0 != UInt8(ascii: "*") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "[") })
        let lower = String(decoding: start, as: UTF8.self)
        // Drop a trailing partial character and 0xFF bytes, which cannot be raised.
        while let last = start.last, last >= 0x80 || last == 0x7F { start.removeLast() }
        guard let last = start.popLast() else { return nil }
        start.append(last + 1)
        return (lower, String(decoding: start, as: UTF8.self))
    }

    /// The rows of the request's content types and of its extensions, when it has words to
    /// match and such a filter holds few files (at most `fewFiles`, from the indexes on
    /// `contentType` and on the extension): each match is then tested against them in memory
    /// instead of being looked up in `files` (a common word with `type:pdf` in a million files:
    /// every one of its matches was a lookup). The filters so answered come with them.
    func rowsOfFewFiles(_ request: SearchRequest) throws(IndexError) -> ([Int64]?, AmongFilters) {
        guard request.match != nil else { return (nil, []) }
        // Extensions with a dot in them (`tar.gz`) are not one last extension: left to LIKE.
        let extensions = request.extensions.map { $0.lowercased() }
        var byExtension = !extensions.isEmpty && extensions.allSatisfy(Self.isLastExtension)
        let types = request.contentTypes.flatMap { $0.isEmpty ? nil : $0 }
        guard types != nil || byExtension else { return (nil, []) }
        return try read { db in
            // An index no writer has opened since the upgrade has no index on the extension yet.
            if byExtension, try !Bool(Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'files_extension'") == 1) {
                byExtension = false
                if types == nil { return (nil, []) }
            }
            // From the filter lists when they hold each value (`FilterLists`), else from the index.
            func few(_ kind: FilterLists.Kind, _ values: [String]) throws -> [Int64]? {
                if let listed = try Self.listedRows(db, kind: kind, values: values) { return listed }
                let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
                return try Self.fewRows(db, "SELECT id FROM files WHERE \(kind.expression) IN (\(placeholders))", StatementArguments(values))
            }
            var among: [Int64]?, filters: AmongFilters = []
            if let types, let ids = try few(.type, types.sorted()) {
                (among, filters) = (ids, [.types])
            }
            if byExtension, let ids = try few(.extension, extensions.sorted()) {
                among = among.map { Self.intersection($0, ids) } ?? ids
                filters.insert(.extensions)
            }
            return (among, filters)
        }
    }

    /// The ids `select` (a statement of one column, `id`) gives, sorted, when they are at most
    /// `fewFiles`; nil past that. In one blob, as `docent_among` searches them
    /// (`docent_sorted_ids`): fetched a row at a time, 50,000 of them took 10 ms at a million files.
    static func fewRows(_ db: Database, _ select: String, _ arguments: StatementArguments) throws -> [Int64]? {
        let blob = try Data.fetchOne(db, sql: "SELECT docent_sorted_ids(id) FROM (\(select) LIMIT ?)",
                                     arguments: arguments + [Self.fewFiles + 1])
        let ids = ids(blob)
        return ids.count > Self.fewFiles ? nil : ids
    }

    /// The native 64-bit ids of a blob (`docent_sorted_ids`'s, a filter list's); none for NULL.
    static func ids(_ blob: Data?) -> [Int64] {
        var ids = [Int64](repeating: 0, count: (blob?.count ?? 0) / MemoryLayout<Int64>.size)
        if let blob { ids.withUnsafeMutableBytes { _ = blob.copyBytes(to: $0) } }
        return ids
    }

    /// The ids in both of two sorted lists, sorted.
    static func intersection(_ a: [Int64], _ b: [Int64]) -> [Int64] {
        var (i, j, both) = (0, 0, [Int64]())
        while i < a.count, j < b.count {
            if a[i] < b[j] { i += 1 } else if b[j] < a[i] { j += 1 } else { both.append(a[i]); (i, j) = (i + 1, j + 1) }
        }
        return both
    }

    /// Runs `body` with `docent_among(rowid)` true for the rows of `among` (sorted ascending),
    /// when there are such rows.
    static func among<T>(_ among: [Int64]?, _ db: Database, _ body: () throws -> T) throws -> T {
        guard let among else { return try body() }
        let ids = among.map { CLongLong($0) }
        return try ids.withUnsafeBufferPointer { ids in
            let connection = UnsafeMutableRawPointer(db.sqliteConnection)
            let rc = docent_register_among(connection, ids.baseAddress, Int32(ids.count))
            guard rc == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot register docent_among") }
            defer { docent_forget_among(connection) }
            return try body()
        }
    }
}
