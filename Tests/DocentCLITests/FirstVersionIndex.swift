import Foundation
import Testing
import TestSupport

/// Writes an index in the schema's first version (as Docent 0.1's first releases made it:
/// FTS5 with its own copy of the text, `porter unicode61`) at `path`, whose directory must
/// exist, with the rows Python code `rows` inserts through the connection `c`. Opening it
/// runs every migration since.
func writeFirstVersionIndex(at path: String, rows: String) throws {
    let script = """
        import sqlite3
        c = sqlite3.connect('\(path)', isolation_level=None)
        c.execute('PRAGMA journal_mode=WAL')
        c.executescript('''
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1');
        CREATE TABLE roots (path BLOB PRIMARY KEY, lastIndexed REAL);
        CREATE TABLE files (id INTEGER PRIMARY KEY, path BLOB NOT NULL UNIQUE, parent BLOB NOT NULL, name TEXT NOT NULL,
            device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL, modified INTEGER NOT NULL,
            changed INTEGER NOT NULL, contentType TEXT NOT NULL, documentType TEXT, title TEXT, metadata TEXT,
            evidence TEXT, errorKind TEXT, errorMessage TEXT, indexedAt REAL NOT NULL);
        CREATE INDEX files_parent ON files(parent);
        CREATE INDEX files_identity ON files(device, inode);
        CREATE INDEX files_type ON files(contentType);
        CREATE VIRTUAL TABLE files_fts USING fts5(name, title, body, meta, parts,
            tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3');
        ''')

        """ + rows
    #expect(try runTool("/usr/bin/python3", ["-c", script]).status == 0)
}
