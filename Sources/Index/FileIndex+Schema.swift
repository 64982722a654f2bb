import GRDB
import Synchronization

extension FileIndex {
    /// The schema, one migration per version; a database that has migrations this list does
    /// not know was made by a newer Docent and is refused, never touched.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE roots (
                    path BLOB PRIMARY KEY,
                    lastIndexed REAL
                );
                CREATE TABLE files (
                    id INTEGER PRIMARY KEY,
                    path BLOB NOT NULL UNIQUE,
                    parent BLOB NOT NULL,
                    name TEXT NOT NULL,
                    device INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    modified INTEGER NOT NULL,
                    changed INTEGER NOT NULL,
                    contentType TEXT NOT NULL,
                    documentType TEXT,
                    title TEXT,
                    metadata TEXT,
                    evidence TEXT,
                    errorKind TEXT,
                    errorMessage TEXT,
                    indexedAt REAL NOT NULL
                );
                CREATE INDEX files_parent ON files(parent);
                CREATE INDEX files_identity ON files(device, inode);
                CREATE INDEX files_type ON files(contentType);
                -- The text lives only here. Prose is stemmed (porter), everything is folded and
                -- stripped of diacritics, and 2- and 3-character prefix indexes serve prefix
                -- queries. `parts` holds the pieces of camelCase identifiers, which unicode61
                -- keeps whole (snake_case and dotted names it already splits).
                CREATE VIRTUAL TABLE files_fts USING fts5(
                    name, title, body, meta, parts,
                    tokenize = 'porter unicode61 remove_diacritics 2',
                    prefix = '2 3'
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            // Facts about the index itself: which reader revisions made its rows.
            try db.execute(sql: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
        migrator.registerMigration("v3") { db in
            // The text moves out of FTS5 into `texts`, compressed (the index was two thirds
            // stored text), and FTS5 reads it back through the `files_text` view (external
            // content). The 2- and 3-character prefix indexes go: they doubled the cost of
            // every insert and the size of the inverted index, for prefix queries FTS5 answers
            // from the term list anyway (a few ms for `licen*`).
            try db.execute(sql: """
                CREATE TABLE texts (
                    id INTEGER PRIMARY KEY,
                    body BLOB NOT NULL,
                    parts BLOB NOT NULL
                );
                INSERT INTO texts (id, body, parts)
                    SELECT rowid, docent_deflate(body), docent_deflate(parts) FROM files_fts;
                DROP TABLE files_fts;
                CREATE VIEW files_text AS
                    SELECT files.id AS id, files.name AS name, coalesce(files.title, '') AS title,
                           docent_inflate(texts.body) AS body, coalesce(files.metadata, '') AS meta,
                           docent_inflate(texts.parts) AS parts
                    FROM files JOIN texts ON texts.id = files.id;
                CREATE VIRTUAL TABLE files_fts USING fts5(
                    name, title, body, meta, parts,
                    content = 'files_text', content_rowid = 'id',
                    tokenize = 'porter unicode61 remove_diacritics 2'
                );
                INSERT INTO files_fts (files_fts) VALUES ('rebuild');
                """)
        }
        migrator.registerMigration("v4") { db in
            // Each content type the index holds, with every type it conforms to (itself
            // included): `type:` filters are answered from here (see FileIndex+TypeAncestry).
            try db.execute(sql: """
                CREATE TABLE type_ancestry (
                    type TEXT NOT NULL,
                    ancestor TEXT NOT NULL,
                    PRIMARY KEY (ancestor, type)
                ) WITHOUT ROWID;
                CREATE INDEX type_ancestry_type ON type_ancestry(type);
                """)
        }
        migrator.registerMigration("v5") { db in
            // The same table with its columns in its key's order. SQLite 3.40.0 to 3.41.0
            // (Debian 12 has 3.40.1) have `PRAGMA quick_check` report "NULL value in
            // type_ancestry.type" for every row of a WITHOUT ROWID table whose key lists its
            // columns in another order than the table does: after every unclean shutdown the
            // index was found "damaged" and rebuilt whole.
            try db.execute(sql: """
                CREATE TABLE type_ancestry_v5 (
                    ancestor TEXT NOT NULL,
                    type TEXT NOT NULL,
                    PRIMARY KEY (ancestor, type)
                ) WITHOUT ROWID;
                INSERT INTO type_ancestry_v5 (ancestor, type) SELECT ancestor, type FROM type_ancestry;
                DROP TABLE type_ancestry;
                ALTER TABLE type_ancestry_v5 RENAME TO type_ancestry;
                CREATE INDEX type_ancestry_type ON type_ancestry(type);
                """)
        }
        migrator.registerMigration("v6") { db in
            // `name:` globs with a literal start (`README*`) are answered from this index
            // through a range on the folded name, not a scan of every row.
            try db.execute(sql: "CREATE INDEX files_folded_name ON files(lower(name))")
        }
        migrator.registerMigration("v7") { db in
            // Long texts stored in blocks (StoredText method 2), so snippets deep in them read
            // one block. Only frames big enough to hold such a text are looked at; the same
            // text goes back, so FTS5, whose content is these texts, is unchanged.
            try db.execute(sql: """
                UPDATE texts SET body = docent_deflate(docent_inflate(body))
                    WHERE length(body) >= 49152 AND substr(body, 1, 1) = x'01';
                UPDATE texts SET parts = docent_deflate(docent_inflate(parts))
                    WHERE length(parts) >= 49152 AND substr(parts, 1, 1) = x'01';
                """)
        }
        migrator.registerMigration("v8") { db in
            // The `docent` tokenizer (Sources/CSnippet/tokenizer.c): Chinese, Japanese and
            // Korean as character bigrams, the rest as before. Texts in blocks count their
            // tokens again (a CJK run has other counts now), and the inverted index is made
            // again from the stored texts: no file is read again, as no reader changed.
            try db.execute(sql: """
                UPDATE texts SET body = docent_deflate(docent_inflate(body)) WHERE substr(body, 1, 1) = x'02';
                UPDATE texts SET parts = docent_deflate(docent_inflate(parts)) WHERE substr(parts, 1, 1) = x'02';
                DROP TABLE files_fts;
                CREATE VIRTUAL TABLE files_fts USING fts5(
                    name, title, body, meta, parts,
                    content = 'files_text', content_rowid = 'id',
                    tokenize = 'docent porter unicode61 remove_diacritics 2'
                );
                INSERT INTO files_fts (files_fts) VALUES ('rebuild');
                """)
        }
        migrator.registerMigration("v9") { db in
            // `ext:` filters over few files are answered from an index on the name's last
            // extension (see `rowsOfFewFiles`), not by testing the name of every match.
            try db.execute(sql: "CREATE INDEX files_extension ON files(\(FileIndex.extensionExpression))")
        }
        migrator.registerMigration("v10") { db in
            // The folded name's index holds the modification time too: a `name:` glob's rows are
            // picked and ordered newest first from it alone (see `search`), and only the page's
            // rows are read from the table.
            try db.execute(sql: """
                DROP INDEX files_folded_name;
                CREATE INDEX files_folded_name ON files(lower(name), modified);
                """)
        }
        migrator.registerMigration("v11") { db in
            // The folders a file is in, a field of its own (`FolderWords`): computed from the
            // parent path by the view, so a move re-indexes them as it does the name. And the
            // document's headings, a field of their own too (filled as the readers that make
            // them, HTML's and Markdown's at their revision 2, read their files again). The
            // inverted index is made again from the stored texts, no file read again, and
            // merged into one segment, as after a large run (`rebuild` leaves a dozen on the
            // benchmark corpus, and its two-word searches took 40% longer).
            try db.execute(sql: """
                DROP TABLE files_fts;
                DROP VIEW files_text;
                ALTER TABLE files ADD COLUMN headings TEXT;
                \(FileIndex.textView)
                CREATE VIRTUAL TABLE files_fts USING fts5(
                    name, title, body, meta, parts, folders, headings,
                    content = 'files_text', content_rowid = 'id',
                    tokenize = 'docent porter unicode61 remove_diacritics 2'
                );
                INSERT INTO files_fts (files_fts) VALUES ('rebuild');
                INSERT INTO files_fts (files_fts) VALUES ('optimize');
                """)
        }
        migrator.registerMigration("v12") { db in
            // FTS5 merges eight segments of a level at a time, not four, and all of a level at
            // once only past 64, not 16 (see `SegmentMerging.automatic`).
            try FileIndex.setSegmentMerging(.automatic, db)
        }
        migrator.registerMigration("v13") { db in
            // Ranked lists of the words in the most files, and the rows changed since each was
            // made (`RankedLists`): logged once the first list is about to be made.
            try db.execute(sql: RankedLists.schema)
        }
        migrator.registerMigration("v14") { db in
            // Each row's length as a one-byte code, made with the ranked lists (`RankedLists.lengthsSchema`).
            try db.execute(sql: RankedLists.lengthsSchema)
        }
        migrator.registerMigration("v15") { db in
            // The rows of each extension and type held by many files (`FilterLists`).
            try db.execute(sql: FilterLists.schema)
            // Made in the ranked lists' round, which codes missing make due.
            try db.execute(sql: "DELETE FROM ranked_lengths")
        }
        return migrator
    }

    /// What FTS5 indexes of each row (its external content): the row's fields and its stored
    /// texts, and the words of its folders.
    static let textView = """
        CREATE VIEW files_text AS
            SELECT files.id AS id, files.name AS name, coalesce(files.title, '') AS title,
                   docent_inflate(texts.body) AS body, coalesce(files.metadata, '') AS meta,
                   docent_inflate(texts.parts) AS parts, docent_folders(files.parent) AS folders,
                   coalesce(files.headings, '') AS headings
            FROM files JOIN texts ON texts.id = files.id;
        """
}

extension FileIndex {
    /// Migrations that make the inverted index again (a new tokenizer, a new field): minutes
    /// for a million files, which the first command to open an older index spends.
    static let reindexingMigrations: Set<String> = ["v8", "v11"]

    /// Who is told before such a migration starts (the command-line tools: on standard error),
    /// so that a search that waits says why.
    static let slowMigrationNotice = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Has `notice` told before a migration that makes the inverted index again starts.
    public static func noticeSlowMigrations(_ notice: @escaping @Sendable (String) -> Void) {
        slowMigrationNotice.withLock { $0 = notice }
    }
}
