/*
 * docent_among(rowid): whether the row is among a sorted set of ids the caller holds (a type
 * filter over few files, see FileIndex.rowsOfFewTypes). A binary search, about 20 ns a match,
 * where a SQL function written in Swift cost a microsecond (its arguments boxed per call).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include "docent_snippet.h"
#include "functions.h"

typedef struct {
    const long long *ids;
    int count;
} Among;

static void among(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    const Among *set = sqlite3_user_data(context);
    sqlite3_int64 rowid = sqlite3_value_int64(argv[0]);
    int low = 0, high = set->count;
    while (low < high) {
        int middle = low + (high - low) / 2;
        if (set->ids[middle] < rowid) low = middle + 1; else high = middle;
    }
    sqlite3_result_int(context, low < set->count && set->ids[low] == rowid);
}

int docent_register_among(void *db, const long long *ids, int count) {
    Among *set = sqlite3_malloc(sizeof *set);
    if (!set) return SQLITE_NOMEM;
    set->ids = ids;
    set->count = count;
    return sqlite3_create_function_v2(db, "docent_among", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, set, among, NULL, NULL,
                                      sqlite3_free);
}

void docent_forget_among(void *db) {
    sqlite3_create_function_v2(db, "docent_among", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL, NULL, NULL, NULL, NULL);
}

/* docent_sorted_ids(id): an aggregate, the ids it was given as one blob of native 64-bit
   integers, ascending, each once (NULL for none) — the rows of a filter over few files read
   in one value, where fetching 50,000 of them a row at a time cost 10 ms at a million files. */
typedef struct {
    sqlite3_int64 *ids;
    size_t count, capacity;
    int sorted;
} Ids;

static void ids_step(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    Ids *ids = sqlite3_aggregate_context(context, sizeof *ids);
    if (!ids) { sqlite3_result_error_nomem(context); return; }
    if (ids->count == ids->capacity) {
        size_t capacity = ids->capacity ? ids->capacity * 2 : 1024;
        sqlite3_int64 *grown = sqlite3_realloc64(ids->ids, capacity * sizeof *grown);
        if (!grown) { sqlite3_result_error_nomem(context); return; }
        ids->ids = grown;
        ids->capacity = capacity;
    }
    sqlite3_int64 id = sqlite3_value_int64(argv[0]);
    if (ids->count == 0) ids->sorted = 1;
    else if (id <= ids->ids[ids->count - 1]) ids->sorted = 0;
    ids->ids[ids->count++] = id;
}

static int ids_compare(const void *a, const void *b) {
    sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
    return (x > y) - (x < y);
}

static void ids_final(sqlite3_context *context) {
    Ids *ids = sqlite3_aggregate_context(context, 0);
    if (!ids || ids->count == 0) { if (ids) sqlite3_free(ids->ids); sqlite3_result_null(context); return; }
    if (!ids->sorted) {
        qsort(ids->ids, ids->count, sizeof *ids->ids, ids_compare);
        size_t kept = 1;
        for (size_t i = 1; i < ids->count; i++) if (ids->ids[i] != ids->ids[kept - 1]) ids->ids[kept++] = ids->ids[i];
        ids->count = kept;
    }
    sqlite3_result_blob64(context, ids->ids, ids->count * sizeof *ids->ids, sqlite3_free);
}

int docent_register_sorted_ids(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "docent_sorted_ids", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, ids_step, ids_final, NULL);
}
