#ifndef DOCENT_SNIPPET_H
#define DOCENT_SNIPPET_H

/* Registers the FTS5 auxiliary function docent_snippet(fts) on the connection `db` (an
   sqlite3 *); returns SQLITE_OK or an SQLite error code. */
int docent_register_snippet(void *db);

#endif
