#ifndef DOCENT_FUNCTIONS_H
#define DOCENT_FUNCTIONS_H
#include <stddef.h>
#include <sqlite3.h>
#include "docent_snippet.h"

/* Registers docent_rank, docent_score and docent_proximity (rank.c) with FTS5 on connection
   `db`, and docent_rescored(rowid) with SQLite. */
int docent_register_rank(sqlite3 *db, fts5_api *api);

/* Registers docent_sorted_ids(id) (among.c): an aggregate, its ids as a blob of native 64-bit
   integers, ascending, each once. */
int docent_register_sorted_ids(sqlite3 *db);

/* Length codes (lengths.c): a row's length in tokens rounded down to one of 255 steps, a byte
   a row, in blocks of LENGTH_BLOCK rows (table ranked_lengths). */
enum { LENGTH_BLOCK = DOCENT_LENGTH_BLOCK, LENGTH_CHANGES = DOCENT_LENGTH_CHANGES };

/* Registers docent_length_codes(id, sz) (lengths.c): an aggregate over FTS5's docsize rows in
   rowid order, the codes as records of an 8-byte native block number and LENGTH_BLOCK codes. */
int docent_register_length_codes(sqlite3 *db);

/* The code of `length` (0 for none). */
unsigned char docent_length_code(sqlite3_int64 length);

/* One statement's reading of the codes (zeroed to start; state 0: not looked at yet). */
typedef struct {
    int state;                  /* 0 not looked at, 1 usable, -1 none kept or too many rows changed */
    sqlite3_blob *blob;
    sqlite3_int64 block;        /* the block in `codes` */
    int size;                   /* its codes read */
    unsigned char codes[LENGTH_BLOCK];
    sqlite3_int64 *changed;     /* rows changed since the codes were made, ascending */
    size_t changedCount;
} LengthCodes;

/* A length `rowid` is at least as long as, from its code; 0 when not known (no codes, a row
   changed since they were made, a row newer than them). */
sqlite3_int64 docent_length_at_least(LengthCodes *codes, sqlite3 *db, sqlite3_int64 rowid);

/* Closes the blob handle and frees what `codes` holds. */
void docent_length_codes_close(LengthCodes *codes);

/* Registers docent_matches (matches.c): every match's byte range in one column. */
int docent_register_matches(fts5_api *api);

/* Registers the `docent` tokenizer (tokenizer.c): CJK as bigrams, the rest as the tokenizer
   it wraps. */
int docent_register_tokenizer(fts5_api *api);

/* An instance of the `docent` tokenizer from `api`, over the tokenizer and arguments given
   (none: its default, porter unicode61 remove_diacritics 2); xDelete it when done. */
int docent_tokenizer_open(fts5_api *api, const char **arguments, int count, fts5_tokenizer *module, Fts5Tokenizer **instance);

/* The FTS5 API of connection `db`, or NULL. */
fts5_api *docent_fts5_api(sqlite3 *db);

/* An FTS5 token callback that adds one to the int `context` points to per token (colocated
   synonyms not counted). */
int docent_count_token(void *context, int flags, const char *token, int length, int start, int end);

/* Counts the tokens of `bytes[0..<length]` (a word with non-ASCII bytes in it) into `*count`. */
typedef int (*WordCounter)(void *context, const char *bytes, int length, int *count);

/* The tokens in bytes[0..<length], which must end at a separator, counted exactly as the
   `docent` tokenizer splits them: runs of ASCII letters and digits counted here, each word
   with other bytes in it (which may hold CJK bigrams) handed to `counter` (snippet.c). */
int docent_count_tokens(WordCounter counter, void *context, const char *bytes, size_t length, int *count);

/* Whether `byte` always separates tokens: an ASCII byte that is not a letter or digit. */
int docent_separates(unsigned char byte);

/* The last index in (from, length] just after a separator, or 0 when there is none. */
size_t docent_whole_tokens_end(const char *bytes, size_t from, size_t length);

static inline unsigned docent_le32(const unsigned char *bytes) {
    return (unsigned)bytes[0] | (unsigned)bytes[1] << 8 | (unsigned)bytes[2] << 16 | (unsigned)bytes[3] << 24;
}

#endif
