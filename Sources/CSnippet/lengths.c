/*
 * Length codes: each row's length in tokens, rounded down to one of 255 steps and kept in one
 * byte, in blocks of LENGTH_BLOCK rows (table `ranked_lengths`, made with the ranked lists).
 *
 * docent_rank and docent_top prune a row whose best possible score is below the k-th best so
 * far without looking its length up. That bound needs a length the row is at least as long as;
 * from its occurrences alone it is weak (a phrase near the start of a long file), and the
 * rows it cannot prune each cost a lookup in FTS5's docsize table: a phrase in 5,502 of a
 * million files looked 5,073 lengths up, ~2,500 pages of docsize read into a new process,
 * about a fifth of the search. A code is a bound within 7% (exact below 15 tokens) of a
 * million rows in 1 MB, read a block of 2,048 rows at a time (sqlite3_blob).
 *
 * A row written after its block was made may be longer or shorter now: the ranked lists' log
 * (`ranked_changes`) names it, and such rows are looked up as before. Past LENGTH_CHANGES
 * rows changed, or with no codes made, every row is looked up as before. The codes only ever
 * spare lookups; scores and order are those of looking every length up (a property test).
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "functions.h"

/* The least length of each code (code 0: not known). b[1] = 1, b[c] = b[c-1] + max(1, 7% of
   it), in integers, so every build of Docent reads a code as every other made it. */
static unsigned lengths_base[256];
static pthread_once_t lengths_base_once = PTHREAD_ONCE_INIT;

static void length_base_make(void) {
    lengths_base[1] = 1;
    for (int c = 2; c < 256; c++) {
        unsigned step = lengths_base[c - 1] * 7 / 100;
        lengths_base[c] = lengths_base[c - 1] + (step > 0 ? step : 1);
    }
}

static const unsigned *length_base(void) {
    pthread_once(&lengths_base_once, length_base_make);
    return lengths_base;
}

unsigned char docent_length_code(sqlite3_int64 length) {
    const unsigned *base = length_base();
    if (length < 1) return 0;
    int low = 1, high = 255;  /* the largest code whose least length is at most `length` */
    while (low < high) {
        int middle = (low + high + 1) / 2;
        if ((sqlite3_int64)base[middle] <= length) low = middle; else high = middle - 1;
    }
    return (unsigned char)low;
}

/* One of SQLite's varints (as FTS5 writes docsize: a varint a column); bytes read, 0 at the end. */
static int read_varint(const unsigned char *bytes, int size, sqlite3_uint64 *value) {
    sqlite3_uint64 v = 0;
    for (int i = 0; i < size && i < 9; i++) {
        if (i == 8) { *value = v << 8 | bytes[i]; return 9; }
        v = v << 7 | (bytes[i] & 0x7f);
        if (!(bytes[i] & 0x80)) { *value = v; return i + 1; }
    }
    return 0;
}

/* docent_length_codes(id, sz) over `files_fts_docsize` in rowid order: the codes as records
   of an 8-byte native block number and LENGTH_BLOCK codes, one record a block holding rows. */
typedef struct {
    unsigned char *bytes;
    size_t size, capacity;
    sqlite3_int64 block;
} CodesBuilder;

enum { RECORD = 8 + LENGTH_BLOCK };

static void codes_step(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    CodesBuilder *codes = sqlite3_aggregate_context(context, sizeof *codes);
    if (!codes) { sqlite3_result_error_nomem(context); return; }
    sqlite3_int64 id = sqlite3_value_int64(argv[0]);
    if (id < 0) return;
    sqlite3_int64 block = id / LENGTH_BLOCK;
    if (codes->size == 0 || block != codes->block) {
        if (codes->size + RECORD > codes->capacity) {
            size_t capacity = codes->capacity ? codes->capacity * 2 : (size_t)RECORD * 64;
            unsigned char *grown = sqlite3_realloc64(codes->bytes, capacity);
            if (!grown) { sqlite3_result_error_nomem(context); return; }
            codes->bytes = grown;
            codes->capacity = capacity;
        }
        memcpy(codes->bytes + codes->size, &block, 8);
        memset(codes->bytes + codes->size + 8, 0, LENGTH_BLOCK);
        codes->size += RECORD;
        codes->block = block;
    }
    const unsigned char *sz = sqlite3_value_blob(argv[1]);
    int size = sqlite3_value_bytes(argv[1]);
    sqlite3_int64 total = 0;
    sqlite3_uint64 column = 0;
    for (int at = 0, read; at < size && (read = read_varint(sz + at, size - at, &column)) > 0; at += read) total += (sqlite3_int64)column;
    codes->bytes[codes->size - RECORD + 8 + (size_t)(id % LENGTH_BLOCK)] = docent_length_code(total);
}

static void codes_final(sqlite3_context *context) {
    CodesBuilder *codes = sqlite3_aggregate_context(context, 0);
    if (!codes || codes->size == 0) { if (codes) sqlite3_free(codes->bytes); sqlite3_result_null(context); return; }
    sqlite3_result_blob64(context, codes->bytes, codes->size, sqlite3_free);
}

int docent_register_length_codes(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "docent_length_codes", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, NULL, codes_step, codes_final, NULL);
}

/* Reading them. */

/* Whether `rowid` is among the rows changed since the codes were made (sorted; a row written
   twice is there twice). */
static int changed_contains(const LengthCodes *codes, sqlite3_int64 rowid) {
    size_t low = 0, high = codes->changedCount;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (codes->changed[middle] < rowid) low = middle + 1; else high = middle;
    }
    return low < codes->changedCount && codes->changed[low] == rowid;
}

static int compare_ids(const void *a, const void *b) {
    sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
    return (x > y) - (x < y);
}

/* The codes' state read once: their position in the log, the rows changed since. */
static void codes_open(LengthCodes *codes, sqlite3 *db) {
    codes->state = -1;
    codes->block = -1;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT asOf FROM ranked_lengths LIMIT 1", -1, &statement, NULL) != SQLITE_OK) { sqlite3_finalize(statement); return; }
    int found = sqlite3_step(statement) == SQLITE_ROW;
    sqlite3_int64 asOf = found ? sqlite3_column_int64(statement, 0) : 0;
    sqlite3_finalize(statement);
    if (!found) return;
    /* The log's entries in the order written, at most LENGTH_CHANGES + 1 of them read (a log a
       burst made long is not read through, nor sorted by SQL), then sorted here. */
    if (sqlite3_prepare_v2(db, "SELECT id FROM ranked_changes WHERE seq > ? ORDER BY seq LIMIT ?", -1, &statement, NULL) != SQLITE_OK) {
        sqlite3_finalize(statement);
        return;
    }
    sqlite3_bind_int64(statement, 1, asOf);
    sqlite3_bind_int(statement, 2, LENGTH_CHANGES + 1);
    codes->changed = sqlite3_malloc64((LENGTH_CHANGES + 1) * sizeof *codes->changed);
    int rc = codes->changed ? SQLITE_ROW : SQLITE_NOMEM;
    while (rc == SQLITE_ROW && (rc = sqlite3_step(statement)) == SQLITE_ROW) codes->changed[codes->changedCount++] = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    if (rc != SQLITE_DONE || codes->changedCount > LENGTH_CHANGES) return;
    qsort(codes->changed, codes->changedCount, sizeof *codes->changed, compare_ids);
    codes->state = 1;
}

sqlite3_int64 docent_length_at_least(LengthCodes *codes, sqlite3 *db, sqlite3_int64 rowid) {
    if (codes->state == 0) codes_open(codes, db);
    if (codes->state < 0 || rowid < 0 || changed_contains(codes, rowid)) return 0;
    sqlite3_int64 block = rowid / LENGTH_BLOCK;
    if (block != codes->block) {
        codes->block = block;
        codes->size = 0;
        int rc = codes->blob ? sqlite3_blob_reopen(codes->blob, block)
                             : sqlite3_blob_open(db, "main", "ranked_lengths", "codes", block, 0, &codes->blob);
        if (rc == SQLITE_OK) {
            int size = sqlite3_blob_bytes(codes->blob);
            if (size > LENGTH_BLOCK) size = LENGTH_BLOCK;
            if (sqlite3_blob_read(codes->blob, codes->codes, size, 0) == SQLITE_OK) codes->size = size;
        } else if (codes->blob) {
            /* No such block (rows made since): a handle that failed is good only for closing. */
            sqlite3_blob_close(codes->blob);
            codes->blob = NULL;
        }
    }
    size_t at = (size_t)(rowid % LENGTH_BLOCK);
    return at < (size_t)codes->size ? (sqlite3_int64)length_base()[codes->codes[at]] : 0;
}

void docent_length_codes_close(LengthCodes *codes) {
    if (codes->blob) sqlite3_blob_close(codes->blob);
    sqlite3_free(codes->changed);
    memset(codes, 0, sizeof *codes);
}
