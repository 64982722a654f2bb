/*
 * docent_matches(fts, column): every match of the query in one column of the current row, as
 * FTS5 matched it (stems, prefixes, phrases, CJK bigrams: the instances FTS5 found, xInst),
 * as byte ranges of the column's text: a blob of native-endian int32 pairs (start, end), in
 * order. For the reader, which marks them all in a whole document.
 *
 * A phrase instance covers as many token positions as the phrase has tokens (xPhraseSize);
 * the column is tokenized once, each position's token giving its range. Overlapping CJK
 * bigrams give overlapping ranges: the caller joins them.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "docent_snippet.h"
#include "functions.h"

typedef struct {
    const int *positions;  /* sorted, unique */
    int count, next, token;
    int *starts, *ends;    /* each position's token's byte range, once met */
} Marking;

static int mark_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)token; (void)length;
    Marking *marking = context;
    if (flags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
    int position = marking->token++;
    while (marking->next < marking->count && marking->positions[marking->next] < position) marking->next++;
    if (marking->next >= marking->count) return SQLITE_DONE;  /* no match after this: stop tokenizing */
    if (marking->positions[marking->next] == position) {
        marking->starts[marking->next] = start;
        marking->ends[marking->next] = end;
    }
    return SQLITE_OK;
}

/* The index of `position` in the sorted `positions`, or -1. */
static int find(const int *positions, int count, int position) {
    int low = 0, high = count - 1;
    while (low <= high) {
        int middle = low + (high - low) / 2;
        if (positions[middle] == position) return middle;
        if (positions[middle] < position) low = middle + 1; else high = middle - 1;
    }
    return -1;
}

static int compare_ints(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void matches(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    int column = argc > 0 ? sqlite3_value_int(argv[0]) : 0;
    int instances = 0;
    if (api->xInstCount(fts, &instances) != SQLITE_OK) { sqlite3_result_error(result, "docent_matches: no instances", -1); return; }
    /* Each instance in the column as its first and last token positions; every position
       they cover, sorted and unique, for one pass of the tokenizer. */
    int *spans = malloc((size_t)(instances > 0 ? instances : 1) * 2 * sizeof(int));
    int spans_count = 0, count = 0, capacity = 0;
    int *positions = NULL;
    if (!spans) { sqlite3_result_error_nomem(result); return; }
    for (int i = 0; i < instances; i++) {
        int phrase, col, offset;
        if (api->xInst(fts, i, &phrase, &col, &offset) != SQLITE_OK || col != column) continue;
        int size = api->xPhraseSize(fts, phrase);
        if (size < 1) size = 1;
        spans[spans_count * 2] = offset;
        spans[spans_count * 2 + 1] = offset + size - 1;
        spans_count++;
        for (int k = 0; k < size; k++) {
            if (count == capacity) {
                capacity = capacity ? capacity * 2 : 64;
                int *grown = realloc(positions, (size_t)capacity * sizeof(int));
                if (!grown) { free(positions); free(spans); sqlite3_result_error_nomem(result); return; }
                positions = grown;
            }
            positions[count++] = offset + k;
        }
    }
    const char *text = NULL;
    int length = 0;
    if (count == 0 || api->xColumnText(fts, column, &text, &length) != SQLITE_OK || !text) {
        free(positions); free(spans);
        sqlite3_result_zeroblob(result, 0);
        return;
    }
    qsort(positions, (size_t)count, sizeof(int), compare_ints);
    int unique = 1;
    for (int i = 1; i < count; i++) if (positions[i] != positions[unique - 1]) positions[unique++] = positions[i];
    int *starts = malloc((size_t)unique * sizeof(int)), *ends = malloc((size_t)unique * sizeof(int));
    int *ranges = malloc((size_t)spans_count * 2 * sizeof(int));
    if (!starts || !ends || !ranges) {
        free(starts); free(ends); free(ranges); free(positions); free(spans);
        sqlite3_result_error_nomem(result);
        return;
    }
    for (int i = 0; i < unique; i++) starts[i] = ends[i] = -1;
    Marking marking = { positions, unique, 0, 0, starts, ends };
    api->xTokenize(fts, text, length, &marking, mark_token);
    /* One range per instance: its first token's start to its last token's end. */
    int ranges_count = 0;
    for (int i = 0; i < spans_count; i++) {
        int first = find(positions, unique, spans[i * 2]), last = find(positions, unique, spans[i * 2 + 1]);
        if (first < 0 || last < 0 || starts[first] < 0 || ends[last] < 0) continue;
        ranges[ranges_count++] = starts[first];
        ranges[ranges_count++] = ends[last];
    }
    free(starts); free(ends); free(positions); free(spans);
    /* In order of their starts (instances come phrase by phrase). */
    qsort(ranges, (size_t)ranges_count / 2, 2 * sizeof(int), compare_ints);
    sqlite3_result_blob(result, ranges, ranges_count * (int)sizeof(int), free);
}

int docent_register_matches(fts5_api *api) {
    return api->xCreateFunction(api, "docent_matches", NULL, matches, NULL);
}
