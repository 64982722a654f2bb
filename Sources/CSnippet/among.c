/*
 * docent_among(rowid): whether the row is among a sorted set of ids the caller holds (a type
 * filter over few files, see FileIndex.rowsOfFewTypes). A binary search, about 20 ns a match,
 * where a SQL function written in Swift cost a microsecond (its arguments boxed per call).
 */
#include <sqlite3.h>
#include "docent_snippet.h"

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
