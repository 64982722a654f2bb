import Index

extension PostgresIndex {
    /// The schema, one migration per version, as for SQLite: applied in order, each in its
    /// own transaction with its record in `docent_migrations`, under an advisory lock so hosts
    /// starting at once do not race; a database with a migration this list does not know was
    /// made by a newer Docent and is refused, never touched.
    static let migrations: [(identifier: String, sql: [String])] = [
        ("v1", [
            // Texts are searched with Snowball's English stemmer (no stop words: "the who" is
            // found as typed) after accents are folded, when the unaccent extension is there
            // (see `textSearchConfiguration`).
            """
            CREATE TEXT SEARCH DICTIONARY docent_stem (TEMPLATE = snowball, Language = english)
            """,
            """
            CREATE TEXT SEARCH CONFIGURATION docent (COPY = simple)
            """,
            """
            CREATE TABLE docent_roots (
                host text NOT NULL,
                path bytea NOT NULL,
                last_indexed double precision,
                PRIMARY KEY (host, path)
            )
            """,
            """
            CREATE TABLE docent_meta (
                host text NOT NULL,
                key text NOT NULL,
                value text NOT NULL,
                PRIMARY KEY (host, key)
            )
            """,
            """
            CREATE TABLE docent_type_ancestry (
                ancestor text NOT NULL,
                type text NOT NULL,
                PRIMARY KEY (ancestor, type)
            )
            """,
            "CREATE INDEX docent_type_ancestry_type ON docent_type_ancestry (type)",
            // One row per file per host. The text is stored (compressed by TOAST) for
            // snippets and for previews of another host's files; `parts` are the pieces of
            // camelCase identifiers, as in SQLite; `fts` (all the words, for the GIN index)
            // weighs the name A, the title B, the metadata C, the text and the parts D;
            // `rank_fts` is the same over the first 1 KB of the text alone, what `ts_rank`
            // reads: ranking a common word read every match's whole vector out of TOAST
            // (95 ms for 6,414 files on the benchmark corpus; 42 ms over 4 KB, 20-24 ms over 1 KB).
            """
            CREATE TABLE docent_files (
                id bigserial PRIMARY KEY,
                host text NOT NULL,
                path bytea NOT NULL,
                parent bytea NOT NULL,
                name text NOT NULL,
                device bigint NOT NULL,
                inode bigint NOT NULL,
                size bigint NOT NULL,
                modified bigint NOT NULL,
                changed bigint NOT NULL,
                content_type text NOT NULL,
                document_type text,
                title text,
                metadata text,
                evidence text,
                error_kind text,
                error_message text,
                indexed_at double precision NOT NULL,
                body text NOT NULL DEFAULT '',
                parts text NOT NULL DEFAULT '',
                fts tsvector NOT NULL,
                rank_fts tsvector NOT NULL,
                UNIQUE (host, path)
            )
            """,
            "CREATE INDEX docent_files_fts ON docent_files USING gin (fts)",
            "CREATE INDEX docent_files_parent ON docent_files (host, parent)",
            "CREATE INDEX docent_files_identity ON docent_files (host, device, inode)",
            "CREATE INDEX docent_files_type ON docent_files (content_type)",
            "CREATE INDEX docent_files_folded_name ON docent_files (lower(name) text_pattern_ops)",
            // Words as SQLite's tokenizer splits them: PostgreSQL's parser keeps file names,
            // paths, addresses, hosts and version numbers whole ('report.pdf', '/usr/bin',
            // '3.14'), so `docent_words` turns their joining characters into spaces first, and
            // the query side does the same (TSQuery.quote).
            """
            CREATE FUNCTION docent_words(text text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN translate(text, './@:~+\\=', '        ')
            """,
            // A file's searchable words. tsvector holds at most 1 MB: past that, a long text's
            // words are kept without their positions (a phrase is then matched as all its words:
            // PostgreSQL cannot check their order), added
            // a piece at a time until the distinct words alone fill the megabyte (the rest of
            // such a text is not searchable). PostgreSQL's last position is 16,383: phrases are
            // found before that word.
            """
            CREATE FUNCTION docent_head_vector(name text, title text, meta text) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN setweight(to_tsvector('docent', docent_words(coalesce(name, ''))), 'A')
                || setweight(to_tsvector('docent', docent_words(coalesce(title, ''))), 'B')
                || setweight(to_tsvector('docent', docent_words(coalesce(meta, ''))), 'C')
            """,
            """
            CREATE FUNCTION docent_rank_vector(name text, title text, body text, meta text) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN docent_head_vector(name, title, meta) || to_tsvector('docent', docent_words(left(body, 1024)))
            """,
            """
            CREATE FUNCTION docent_vector(name text, title text, body text, meta text, parts text) RETURNS tsvector
            LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
            DECLARE
                head tsvector := docent_head_vector(name, title, meta);
                words text := docent_words(body || ' ' || parts);
                vector tsvector;
                piece integer := 65536;
            BEGIN
                BEGIN
                    RETURN head || to_tsvector('docent', words);
                EXCEPTION WHEN program_limit_exceeded THEN
                    vector := head;
                END;
                FOR i IN 0 .. (length(words) - 1) / piece LOOP
                    BEGIN
                        vector := vector || strip(to_tsvector('docent', substr(words, i * piece + 1, piece)));
                    EXCEPTION WHEN program_limit_exceeded THEN
                        EXIT;
                    END;
                END LOOP;
                RETURN vector;
            END $$
            """,
        ]),
        ("v2", [
            // (History: v3 replaced all of this.) A text's words were prepared by Docent and
            // passed in (its joining characters turned into spaces, its identifier pieces
            // appended), so the server no longer translated megabytes of text a character at a
            // time. A text too short for its vector to reach tsvector's 1 MB (200,000 bytes of
            // words) went through a plain SQL function, folded into the statement; only a
            // longer one through PL/pgSQL, whose exception block opens a subtransaction. A cold
            // index of the benchmark corpus spent 57% of the server's time evaluating these
            // functions, a third of that outside `to_tsvector` itself.
            """
            CREATE FUNCTION docent_words_vector(head tsvector, words text) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN head || to_tsvector('docent', words)
            """,
            """
            CREATE FUNCTION docent_long_vector(head tsvector, words text) RETURNS tsvector
            LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
            DECLARE
                vector tsvector;
                piece integer := 65536;
            BEGIN
                BEGIN
                    RETURN head || to_tsvector('docent', words);
                EXCEPTION WHEN program_limit_exceeded THEN
                    vector := head;
                END;
                FOR i IN 0 .. (length(words) - 1) / piece LOOP
                    BEGIN
                        vector := vector || strip(to_tsvector('docent', substr(words, i * piece + 1, piece)));
                    EXCEPTION WHEN program_limit_exceeded THEN
                        EXIT;
                    END;
                END LOOP;
                RETURN vector;
            END $$
            """,
            // v1's function, for rows renamed in the database, now one line over the above: one
            // definition of what a long text keeps.
            """
            CREATE OR REPLACE FUNCTION docent_vector(name text, title text, body text, meta text, parts text) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN docent_long_vector(docent_head_vector(name, title, meta), docent_words(body || ' ' || parts))
            """,
        ]),
        ("v3", [
            // Docent makes every vector itself, with the SQLite index's tokenizer (Porter
            // stems, accents folded, CJK bigrams: TextWords), and sends it whole; queries are
            // tsquery text of its tokens. The server's configuration and functions go; every
            // row's vectors are made again by the migrating client (`makeWordsAgain`, in
            // `migrate`). A cold index of the benchmark corpus spent half the server's time in
            // to_tsvector.
            """
            DROP FUNCTION IF EXISTS docent_vector(text, text, text, text, text), docent_rank_vector(text, text, text, text),
                docent_head_vector(text, text, text), docent_long_vector(tsvector, text), docent_words_vector(tsvector, text),
                docent_words(text)
            """,
            "DROP TEXT SEARCH CONFIGURATION IF EXISTS docent",
            "DROP TEXT SEARCH DICTIONARY IF EXISTS docent_stem",
            // `rank_fts` (what ts_rank reads of every match, about 1 KB) kept in the row, moved
            // out of it only as a last resort: out in TOAST, each match cost an index lookup
            // and a chunk read, and ranking a common word's 6,430 matches took 25 ms, 9 in the row.
            "ALTER TABLE docent_files ALTER COLUMN rank_fts SET STORAGE MAIN",
            // Its own GIN index: a search ranks only the matches whose `rank_fts` holds a query
            // word (the others score 0), found through it (PostgresIndex.search).
            "CREATE INDEX IF NOT EXISTS docent_files_rank_fts ON docent_files USING gin (rank_fts)",
            // The first 32 K characters of a longer text, for snippets: PostgreSQL reads a whole
            // lz4-compressed value out of TOAST even for its start (`left`), and a snippet of a
            // long PDF's text read megabytes (11 ms for the 20 hits of `manual type:pdf`).
            // (Filled by `makeWordsAgain`; lz4 where the server has it, as in v1.)
            "ALTER TABLE docent_files ADD COLUMN IF NOT EXISTS head text",
        ]),
        ("v4", [
            // The words of each row's name and title (weights A and B of `rank_fts`), and its
            // number of words: a search for any of some words ranks the rows holding one in a
            // name or title first, and the others only where they could still score higher
            // (short vectors; PostgresIndex.search). `python -perl` ranked all 10,913 rows
            // with "python" in their first kilobyte, 17 ms in a warm backend; 598 now.
            "CREATE INDEX IF NOT EXISTS docent_files_rank_names ON docent_files USING gin (ts_filter(rank_fts, '{a,b}'))",
            "CREATE INDEX IF NOT EXISTS docent_files_rank_length ON docent_files (length(rank_fts))",
        ]),
        // The names of the folders a file is in join its words (`FolderWords`, weight D), and
        // the document's headings (weight C, kept in `headings`), as they are fields of the
        // SQLite index (its v11): every row's vectors are made again by the migrating client
        // (`makeWordsAgain`, in `migrate`).
        ("v5", ["ALTER TABLE docent_files ADD COLUMN IF NOT EXISTS headings text"]),
        // Each row's text's digest, kept by the server as it writes the text: identical files
        // among a page of hits (`identicalGroups`) are found by it, where comparing the texts
        // themselves read every same-sized PDF's whole text out of TOAST (57 ms of the 95 of
        // `manual type:pdf` on the benchmark corpus). MD5 as a digest of what a file says, not
        // against an adversary: a forged collision would show one file as another's copy,
        // listed with it, never hidden.
        ("v6", ["ALTER TABLE docent_files ADD COLUMN IF NOT EXISTS digest text GENERATED ALWAYS AS (md5(body)) STORED"]),
        // The folded name's index holds the name, the date and the id too, so that a `name:`
        // glob finds its newest files in the index alone (an index-only scan) and reads the
        // rows of those it keeps only: `name:README*` at 600,000 rows read 3,007 rows on 2,729
        // heap pages to keep 50 (27–67 ms), 8 ms now (`PostgresIndex.search`). It replaces
        // the index on the folded name alone, whose every use it serves.
        ("v7", [
            "CREATE INDEX IF NOT EXISTS docent_files_names_dated ON docent_files (lower(name) text_pattern_ops) INCLUDE (name, modified, id)",
            "DROP INDEX IF EXISTS docent_files_folded_name",
        ]),
        // The words of each row's headings and metadata (weight C of `rank_fts`): a row
        // holding a query word in its text alone scores under a third of what one holding it
        // there could, and the search for any of some words finds the latter through this
        // index to rank them under a longer cut than the former (`namedFirstCut`).
        ("v8", ["CREATE INDEX IF NOT EXISTS docent_files_rank_described ON docent_files USING gin (ts_filter(rank_fts, '{c}'))"]),
    ]

    /// The text search configuration's mapping: accents folded first when the unaccent
    /// extension can be had (PostgreSQL's contrib, a trusted extension), then the stemmer.
    static func textSearchMapping(unaccent: Bool) -> String {
        """
        ALTER TEXT SEARCH CONFIGURATION docent ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
        WITH \(unaccent ? "unaccent, " : "")docent_stem
        """
    }

    /// `columns` of the files table compressed with lz4 where the server has it; left as
    /// they are (pglz) where it does not.
    private static func compressWithLZ4(_ connection: Connection, columns: [String]) throws(IndexError) {
        try connection.execute("SAVEPOINT lz4")
        do {
            try connection.execute("ALTER TABLE docent_files " + columns.map { "ALTER COLUMN \($0) SET COMPRESSION lz4" }.joined(separator: ", "))
            try connection.execute("RELEASE SAVEPOINT lz4")
        } catch {
            try connection.execute("ROLLBACK TO SAVEPOINT lz4")
        }
    }

    /// Brings the schema up to date (see `migrations`). A schema already current is only read
    /// (no transaction, no lock), so a search may use a read-only replica.
    func migrate() throws(IndexError) {
        let known = Set(Self.migrations.map(\.identifier))
        let current: Bool? = try? run { connection throws(IndexError) in
            let rows = try connection.execute("SELECT identifier FROM docent_migrations")
            let applied = Set((0..<rows.count).compactMap { rows.string($0, 0) })
            if !applied.isSubset(of: known) { throw IndexError.newerSchema(path: displayName) }
            return applied == known
        }
        if current == true { return }
        try run(transaction: true) { connection throws(IndexError) in
            // One migrator at a time in the whole database (the key: "docent" in ASCII, as a number).
            try connection.execute("SELECT pg_advisory_xact_lock(110429571739252)")
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS docent_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let rows = try connection.execute("SELECT identifier FROM docent_migrations")
            let applied = Set((0..<rows.count).compactMap { rows.string($0, 0) })
            guard applied.isSubset(of: known) else { throw IndexError.newerSchema(path: displayName) }
            var remakeWords = false  // v3's and v5's vectors, made once after the migrations
            for migration in Self.migrations where !applied.contains(migration.identifier) {
                for statement in migration.sql { try connection.execute(statement) }
                if migration.identifier == "v1" {
                    // lz4 for the large columns where the server has it (PostgreSQL 14+ built
                    // with it, as Debian's is): a cold index spent 8% of the server's time in
                    // pglz compressing texts.
                    try Self.compressWithLZ4(connection, columns: ["body", "parts", "fts", "rank_fts"])
                    try connection.execute("SAVEPOINT unaccent")
                    do {
                        try connection.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
                        try connection.execute(Self.textSearchMapping(unaccent: true))
                        try connection.execute("RELEASE SAVEPOINT unaccent")
                    } catch {
                        try connection.execute("ROLLBACK TO SAVEPOINT unaccent")
                        try connection.execute(Self.textSearchMapping(unaccent: false))
                    }
                }
                if migration.identifier == "v3" { try Self.compressWithLZ4(connection, columns: ["head"]) }
                if migration.identifier == "v3" || migration.identifier == "v5" { remakeWords = true }
                try connection.execute("INSERT INTO docent_migrations (identifier) VALUES ($1)", [.text(migration.identifier)])
            }
            if remakeWords { try Self.makeWordsAgain(connection) }
        }
    }
}
