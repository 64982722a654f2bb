/*
 * docent_snippet(fts): a fragment of about 16 tokens around the best matches, the matched
 * phrases between \x02 and \x03, "…" where text was left out.
 *
 * FTS5's own snippet() tokenizes the whole of every column it considers, so one hit in a
 * 5 MB PDF costs a pass over 5 MB. This one picks the window from the match positions FTS5
 * already has (xInst), prefers the body (column 2), and tokenizes only up to the end of the
 * window: the cost is the distance to the first good match, not the size of the document.
 */
#include <sqlite3.h>
#include <string.h>
#include "docent_snippet.h"

enum { WINDOW = 16, LEAD = 3, CANDIDATES = 64, BODY = 2 };

typedef struct {
    int first, last;             /* token positions of the window, inclusive */
    int count;                   /* tokens seen so far */
    int start[WINDOW], end[WINDOW];
    int seen;                    /* window tokens recorded */
    int more;                    /* a token after the window exists */
} Scan;

static int on_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)token; (void)length;
    Scan *scan = context;
    if (flags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
    int position = scan->count++;
    if (position > scan->last) { scan->more = 1; return SQLITE_DONE; }  /* stop: the window is complete */
    if (position >= scan->first) {
        scan->start[position - scan->first] = start;
        scan->end[position - scan->first] = end;
        scan->seen = position - scan->first + 1;
    }
    return SQLITE_OK;
}

static void snippet(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    (void)argc; (void)argv;
    int instances = 0, rc = api->xInstCount(fts, &instances);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }

    /* The column: the body when it matched, else the column of the first match. */
    int column = -1;
    for (int i = 0; i < instances; i++) {
        int phrase, col, offset;
        if (api->xInst(fts, i, &phrase, &col, &offset) != SQLITE_OK) continue;
        if (col == BODY) { column = BODY; break; }
        if (column < 0) column = col;
    }
    if (column < 0) column = BODY;

    /* The window: of the first CANDIDATES matches in the column, the one whose window holds
       the most distinct phrases (the earliest on a tie). */
    int best_first = 0, best_score = -1, candidates = 0;
    for (int i = 0; i < instances && candidates < CANDIDATES; i++) {
        int phrase, col, offset;
        if (api->xInst(fts, i, &phrase, &col, &offset) != SQLITE_OK || col != column) continue;
        candidates++;
        int first = offset > LEAD ? offset - LEAD : 0, score = 0;
        unsigned long long found = 0;
        for (int j = 0; j < instances; j++) {  /* instances come in (column, offset) order */
            int p, c, o;
            if (api->xInst(fts, j, &p, &c, &o) != SQLITE_OK || c < column || (c == column && o < first)) continue;
            if (c > column || o >= first + WINDOW) break;
            if (o >= first && o + api->xPhraseSize(fts, p) - 1 < first + WINDOW && p < 64 && !(found & (1ULL << p))) {
                found |= 1ULL << p;
                score++;
            }
        }
        if (score > best_score) { best_score = score; best_first = first; }
    }

    const char *text = NULL;
    int length = 0;
    rc = api->xColumnText(fts, column, &text, &length);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    if (!text || length == 0) { sqlite3_result_text(result, "", 0, SQLITE_STATIC); return; }

    Scan scan = { .first = best_first, .last = best_first + WINDOW - 1 };
    rc = api->xTokenize(fts, text, length, &scan, on_token);
    if (rc != SQLITE_OK && rc != SQLITE_DONE) { sqlite3_result_error_code(result, rc); return; }
    if (scan.seen == 0) { sqlite3_result_text(result, "", 0, SQLITE_STATIC); return; }

    /* Which window tokens open and close a highlighted phrase. */
    unsigned char opens[WINDOW] = {0}, closes[WINDOW] = {0};
    for (int i = 0; i < instances; i++) {
        int phrase, col, offset;
        if (api->xInst(fts, i, &phrase, &col, &offset) != SQLITE_OK || col != column) continue;
        int last = offset + api->xPhraseSize(fts, phrase) - 1;
        if (offset < scan.first || last >= scan.first + scan.seen) continue;
        opens[offset - scan.first]++;
        closes[last - scan.first]++;
    }

    sqlite3_str *out = sqlite3_str_new(NULL);
    if (scan.first > 0) sqlite3_str_appendall(out, "…");
    int depth = 0;
    for (int i = 0; i < scan.seen; i++) {
        if (i > 0) sqlite3_str_append(out, text + scan.end[i - 1], scan.start[i] - scan.end[i - 1]);
        if (opens[i] && depth == 0) sqlite3_str_appendchar(out, 1, '\x02');
        depth += opens[i];
        sqlite3_str_append(out, text + scan.start[i], scan.end[i] - scan.start[i]);
        depth -= closes[i] < depth ? closes[i] : depth;
        if (closes[i] && depth == 0) sqlite3_str_appendchar(out, 1, '\x03');
    }
    if (depth > 0) sqlite3_str_appendchar(out, 1, '\x03');
    if (scan.more) sqlite3_str_appendall(out, "…");
    int size = sqlite3_str_length(out);
    char *fragment = sqlite3_str_finish(out);
    if (!fragment) { sqlite3_result_error_nomem(result); return; }
    sqlite3_result_text(result, fragment, size, sqlite3_free);
}

int docent_register_snippet(void *connection) {
    sqlite3 *db = connection;
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    return api->xCreateFunction(api, "docent_snippet", NULL, snippet, NULL);
}
