#ifndef DOCENT_SNIPPET_H
#define DOCENT_SNIPPET_H
#include <stddef.h>

/* Registers Docent's FTS5 auxiliary functions on the connection `db` (an sqlite3 *):
   docent_snippet(fts), a fragment around the best matches (snippet.c), and
   docent_rank(fts, weights...), bm25() with row lengths remembered (rank.c), and
   docent_matches(fts, column), every match's byte range in a column (matches.c), and
   docent_sorted_ids(id), an aggregate of ids as one sorted blob (among.c). Returns
   SQLITE_OK or an SQLite error code. */
int docent_register_search_functions(void *db);

/* docent_among(rowid) on connection `db`: whether rowid is one of ids[0..<count], which must
   be sorted and stay alive until docent_forget_among (among.c); a search's type filter over
   few files, tested for each match without a lookup in `files`. */
int docent_register_among(void *db, const long long *ids, int count);
void docent_forget_among(void *db);

/* Checkpoints off the committing thread (checkpoints.c): on connection `db` (an sqlite3 *),
   each commit that leaves `frames` or more in the write-ahead log calls `ready(context)`,
   in place of SQLite's automatic checkpoint; whoever it wakes checkpoints on a connection of
   its own. Returns a handle for docent_take_back_checkpoints (NULL when out of memory), which
   puts SQLite's automatic checkpoint back at `frames` and frees the handle. */
void *docent_hand_off_checkpoints(void *db, int frames, void (*ready)(void *context), void *context);
void docent_take_back_checkpoints(void *db, void *handle, int frames);

/* `text[0..<length]` stored in blocks of about `block_size` bytes, each a Zstandard frame at
   `level`, with the tokens before each block counted (blocks.c): method 2 of StoredText.swift,
   its method byte included. On
   SQLITE_OK, `*stored` (free() it) holds `*stored_length` bytes; SQLITE_DONE when the text
   makes one block only (store it as one frame). */
int docent_store_blocks(const char *text, size_t length, size_t block_size, int level,
                        unsigned char **stored, size_t *stored_length);

/* Whether code point `c` is Han, Kana or Hangul, which the `docent` tokenizer (tokenizer.c)
   indexes as overlapping bigrams. */
int docent_is_cjk(unsigned c);

/* The tokens the index's `docent` tokenizer makes of `text[0..<length]` as a query (stemmed,
   folded), each followed by a newline, written to `out`; their length in bytes, or -1 (no
   such tokenizer on connection `db`, or more than `capacity` bytes). */
int docent_index_tokens(void *db, const char *text, int length, char *out, int capacity);

/* Checks the `docent` tokenizer on `text`: every token's offsets inside it and in order (as a
   document and as a query), and docent_snippet's count of its tokens equal to the
   tokenizer's. 0 when all hold, else which failed (1 document, 2 query, 3 count); -1 when
   the tokenizer is not registered on `db`. For the fuzzer and the tests. */
int docent_tokenizer_check(void *db, const char *text, int length);

/* The words of `count` texts (texts[i][0..<lengths[i]], weight weights[i]: 3 for PostgreSQL's
   A … 0 for D), numbered on from one text to the next, as the `docent` tokenizer on
   connection `db` makes them for a document: a PostgreSQL tsvector in the binary form its
   tsvectorrecv reads, within tsvector's limits (tsvector.c). SQLITE_OK and `*out` (free()
   it) of `*out_length` bytes; -1 when the tokenizer is not registered on `db`; else an
   SQLite error code. */
int docent_tsvector(void *db, const char *const *texts, const int *lengths, const int *weights, int count,
                    unsigned char **out, size_t *out_length);

/* As docent_index_tokens, with FTS5's prefix flag when `prefix` (the tokens of a word typed
   as a prefix). */
int docent_query_tokens(void *db, const char *text, int length, int prefix, char *out, int capacity);

/* Rows a block of length codes holds (lengths.c): docent_length_codes' records are an 8-byte
   native block number and this many one-byte codes. */
#define DOCENT_LENGTH_BLOCK 2048
/* Writes logged since the codes were made (a row written twice counts twice) past which a
   search reads none of them. */
#define DOCENT_LENGTH_CHANGES 4096

#endif
