#ifndef DOCENT_SNIPPET_H
#define DOCENT_SNIPPET_H

/* Registers Docent's FTS5 auxiliary functions on the connection `db` (an sqlite3 *):
   docent_snippet(fts), a fragment around the best matches (snippet.c), and
   docent_rank(fts, weights...), bm25() with row lengths remembered (rank.c). Returns
   SQLITE_OK or an SQLite error code. */
int docent_register_search_functions(void *db);

#endif
