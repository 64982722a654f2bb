/*
 * docent_snippet(fts): a fragment of about 16 tokens around the best matches, the matched
 * phrases between \x02 and \x03, "…" where text was left out.
 *
 * FTS5's own snippet() tokenizes the whole of every column it considers, and asking FTS5 for
 * a column's text (xColumnText) reads the whole row of the content view: both stored texts
 * decompressed in full. One hit in a 6 MB PDF cost tens of milliseconds that way. This one
 * picks the window from the match positions FTS5 already has (xInst), prefers the body
 * (column 2), and reads the column itself: the stored text is streamed out of its blob and
 * decompressed only as far as the window, and the tokens before the window are counted,
 * not tokenized, where the text is ASCII. The cost is the distance to the first good match,
 * at memory speed.
 *
 * Counting is exact: the table's tokenizer (`docent`, tokenizer.c: unicode61 outside CJK
 * runs) takes the ASCII letters and digits as token characters and every other ASCII byte
 * as a separator, so a stretch of text that ends at an ASCII separator holds whole tokens.
 * A stretch with other bytes in it is counted by the table's own tokenizer. (The porter
 * stemmer neither splits nor joins tokens.) CJK bigrams overlap: the fragment is the window's
 * text from its first token's start to its last token's end, the matches marked as ranges.
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "docent_snippet.h"
#include "functions.h"

enum { WINDOW = 16, LEAD = 3, CANDIDATES = 64 };
/* The columns of files_fts. */
enum { NAME = 0, TITLE = 1, BODY = 2, META = 3, PARTS = 4, FOLDERS = 5, HEADINGS = 6 };
/* Tokens are counted a stretch of about BLOCK bytes at a time; text is decompressed in
   steps of STEP bytes. */
enum { BLOCK = 1 << 16, STEP = 1 << 16, INPUT = 1 << 14 };

/* ---- A column's text, read only as far as it is needed. ---- */

typedef struct {
    char *bytes;                 /* the text from where the reader has got to */
    size_t length, capacity;
    int complete;                /* the whole text is in `bytes` */
    sqlite3_blob *blob;          /* a stored text: one method byte, then the text or a zstd frame */
    int blob_size, blob_read;
    ZSTD_DStream *stream;        /* for methods 1 and 2 */
    int frames;                  /* method 2: more frames may follow the one being read */
    int tokens_before;           /* tokens in the text before `bytes` began */
    unsigned char input[INPUT];
    ZSTD_inBuffer in;
} Text;

static int text_reserve(Text *text, size_t capacity) {
    if (capacity <= text->capacity) return SQLITE_OK;
    size_t grown = text->capacity ? text->capacity : STEP;
    while (grown < capacity) grown *= 2;
    char *bytes = realloc(text->bytes, grown);
    if (!bytes) return SQLITE_NOMEM;
    text->bytes = bytes;
    text->capacity = grown;
    return SQLITE_OK;
}

/* Drops the first `count` bytes held: the buffer stays the size of a few steps however far
   into the text the window is. */
static void text_discard(Text *text, size_t count) {
    memmove(text->bytes, text->bytes + count, text->length - count);
    text->length -= count;
}

/* Each thread keeps its last buffer and decompression stream for the next snippet: a search
   makes twenty, and fresh ones cost page faults and a stream's set-up each time. */
typedef struct {
    char *bytes;
    size_t capacity;
    ZSTD_DStream *stream;
} Spare;

static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_free(void *value) {
    Spare *spare = value;
    free(spare->bytes);
    if (spare->stream) ZSTD_freeDStream(spare->stream);
    free(spare);
}

static void spare_key_create(void) { pthread_key_create(&spare_key, spare_free); }

static Spare *spare_get(void) {
    pthread_once(&spare_once, spare_key_create);
    Spare *spare = pthread_getspecific(spare_key);
    if (!spare && (spare = calloc(1, sizeof *spare))) pthread_setspecific(spare_key, spare);
    return spare;
}

/* The thread's spare buffer, taken. */
static void text_init(Text *text) {
    Spare *spare = spare_get();
    if (!spare) return;
    text->bytes = spare->bytes;
    text->capacity = spare->capacity;
    spare->bytes = NULL;
    spare->capacity = 0;
}

/* A decompression stream: the thread's spare, reset, or a new one. */
static ZSTD_DStream *stream_take(void) {
    Spare *spare = spare_get();
    if (spare && spare->stream) {
        ZSTD_DStream *stream = spare->stream;
        spare->stream = NULL;
        if (!ZSTD_isError(ZSTD_DCtx_reset(stream, ZSTD_reset_session_only))) return stream;
        ZSTD_freeDStream(stream);
    }
    return ZSTD_createDStream();
}

/* Gives the buffer (when not grown past a few steps) and the stream back to the thread's spare. */
static void text_free(Text *text) {
    if (text->blob) sqlite3_blob_close(text->blob);
    Spare *spare = spare_get();
    if (spare && !spare->bytes && text->capacity <= 4 * STEP) {
        spare->bytes = text->bytes;
        spare->capacity = text->capacity;
    } else {
        free(text->bytes);
    }
    if (spare && !spare->stream) spare->stream = text->stream;
    else if (text->stream) ZSTD_freeDStream(text->stream);
}

/* A column held in `files` (name, title, metadata, headings): read whole, they are short. */
static int text_open_row(Text *text, sqlite3 *db, sqlite3_int64 id, int column) {
    const char *sql = column == NAME ? "SELECT name FROM files WHERE id = ?"
                    : column == TITLE ? "SELECT coalesce(title, '') FROM files WHERE id = ?"
                    : column == HEADINGS ? "SELECT coalesce(headings, '') FROM files WHERE id = ?"
                    : "SELECT coalesce(metadata, '') FROM files WHERE id = ?";
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(statement, 1, id);
    rc = sqlite3_step(statement);
    if (rc == SQLITE_ROW) {
        const unsigned char *value = sqlite3_column_text(statement, 0);
        int size = sqlite3_column_bytes(statement, 0);
        rc = text_reserve(text, (size_t)size + 1);
        if (rc == SQLITE_OK && value) {
            memcpy(text->bytes, value, (size_t)size);
            text->length = (size_t)size;
        }
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(statement);
    text->complete = 1;
    return rc;
}

/* A stored text (body, parts), opened for streaming from the start, or for a text stored in
   blocks (method 2, StoredText.swift) from the block that holds token `first`. */
static int text_open_blob(Text *text, sqlite3 *db, sqlite3_int64 id, int column, int first) {
    int rc = sqlite3_blob_open(db, "main", "texts", column == BODY ? "body" : "parts", id, 0, &text->blob);
    if (rc != SQLITE_OK) {  /* no stored text: as the content view, which joins on it, reads "" */
        text->blob = NULL;
        text->complete = 1;
        return SQLITE_OK;
    }
    text->blob_size = sqlite3_blob_bytes(text->blob);
    if (text->blob_size == 0) { text->complete = 1; return SQLITE_OK; }
    unsigned char method = 0;
    rc = sqlite3_blob_read(text->blob, &method, 1, 0);
    if (rc != SQLITE_OK) return rc;
    text->blob_read = 1;
    if (method == 2) {
        /* A table of blocks (frame size, text size, tokens before it), then the frames. */
        unsigned char head[4];
        if ((rc = sqlite3_blob_read(text->blob, head, 4, 1)) != SQLITE_OK) return rc;
        unsigned blocks = docent_le32(head);
        if (blocks == 0 || blocks > (unsigned)(text->blob_size - 5) / 12) return SQLITE_CORRUPT;
        unsigned char *table = malloc((size_t)blocks * 12);
        if (!table) return SQLITE_NOMEM;
        if ((rc = sqlite3_blob_read(text->blob, table, (int)blocks * 12, 5)) != SQLITE_OK) { free(table); return rc; }
        long long offset = 5 + (long long)blocks * 12;
        for (unsigned k = 0; k < blocks; k++) {
            unsigned before = docent_le32(table + k * 12 + 8);
            if (k > 0 && before > (unsigned)first) break;
            if (k > 0) offset += docent_le32(table + (k - 1) * 12);
            text->tokens_before = (int)before;
        }
        free(table);
        if (offset >= text->blob_size) return SQLITE_CORRUPT;
        text->blob_read = (int)offset;
        text->frames = 1;
    }
    if (method == 1 || method == 2) {
        text->stream = stream_take();
        if (!text->stream) return SQLITE_NOMEM;
        text->in = (ZSTD_inBuffer){ .src = text->input, .size = 0, .pos = 0 };
    } else if (method != 0) {
        return SQLITE_CORRUPT;  /* not a stored text: a damaged index, reported as such */
    }
    return SQLITE_OK;
}

/* Makes `text` hold at least `wanted` bytes, or all of it. */
static int text_more(Text *text, size_t wanted) {
    while (!text->complete && text->length < wanted) {
        int rc = text_reserve(text, text->length + STEP);
        if (rc != SQLITE_OK) return rc;
        if (!text->stream) {  /* stored as it is */
            int left = text->blob_size - text->blob_read;
            int size = left < STEP ? left : STEP;
            rc = sqlite3_blob_read(text->blob, text->bytes + text->length, size, text->blob_read);
            if (rc != SQLITE_OK) return rc;
            text->blob_read += size;
            text->length += (size_t)size;
            if (text->blob_read == text->blob_size) text->complete = 1;
            continue;
        }
        if (text->in.pos == text->in.size && text->blob_read < text->blob_size) {
            int left = text->blob_size - text->blob_read;
            int size = left < INPUT ? left : INPUT;
            rc = sqlite3_blob_read(text->blob, text->input, size, text->blob_read);
            if (rc != SQLITE_OK) return rc;
            text->blob_read += size;
            text->in = (ZSTD_inBuffer){ .src = text->input, .size = (size_t)size, .pos = 0 };
        }
        ZSTD_outBuffer out = { .dst = text->bytes + text->length, .size = text->capacity - text->length, .pos = 0 };
        size_t result = ZSTD_decompressStream(text->stream, &out, &text->in);
        if (ZSTD_isError(result)) return SQLITE_CORRUPT;
        text->length += out.pos;
        if (result == 0) {
            /* The frame ended: the text did, unless a block's frame follows. */
            if (!text->frames || (text->in.pos == text->in.size && text->blob_read == text->blob_size)) text->complete = 1;
        } else if (out.pos == 0 && text->in.pos == text->in.size && text->blob_read == text->blob_size) {
            return SQLITE_CORRUPT;  /* all read and the frame wants more: it is cut short */
        }
    }
    return SQLITE_OK;
}

/* ---- Counting and scanning tokens. ---- */

/* An ASCII letter or digit: unicode61's token characters among ASCII (every other ASCII
   byte separates tokens). Without a table, so that runs of it vectorize. */
static inline int alphanumeric(unsigned char byte) {
    return ((unsigned)(byte | 0x20) - 'a' < 26u) | ((unsigned)byte - '0' < 10u);
}

int docent_separates(unsigned char byte) { return byte < 0x80 && !alphanumeric(byte); }

int docent_count_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)token; (void)length; (void)start; (void)end;
    if (!(flags & FTS5_TOKEN_COLOCATED)) ++*(int *)context;
    return SQLITE_OK;
}

fts5_api *docent_fts5_api(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    return sqlite3_finalize(statement) == SQLITE_OK ? api : NULL;
}

/* The table's tokenizer through the auxiliary-function API, as a word counter. */
typedef struct {
    const Fts5ExtensionApi *api;
    Fts5Context *fts;
} TableTokenizer;

static int table_count(void *context, const char *bytes, int length, int *count) {
    TableTokenizer *table = context;
    return table->api->xTokenize(table->fts, bytes, length, count, docent_count_token);
}

int docent_count_tokens(WordCounter counter, void *context, const char *bytes, size_t length, int *count) {
    int tokens = 0, inside = 0;
    size_t word = 0;  /* just after the last separator */
    for (size_t i = 0; i < length;) {
        /* Runs of 64 ASCII bytes without a branch per byte (the compiler vectorizes these). */
        if (i + 64 <= length) {
            const unsigned char *chunk = (const unsigned char *)bytes + i;
            unsigned char high = 0;
            for (int k = 0; k < 64; k++) high |= chunk[k];
            if (!(high & 0x80)) {
                int starts = alphanumeric(chunk[0]) & !inside;
                for (int k = 1; k < 64; k++) starts += alphanumeric(chunk[k]) & !alphanumeric(chunk[k - 1]);
                tokens += starts;
                inside = alphanumeric(chunk[63]);
                for (int k = 63; k >= 0; k--) if (!alphanumeric(chunk[k])) { word = i + (size_t)k + 1; break; }
                i += 64;
                continue;
            }
        }
        unsigned char byte = (unsigned char)bytes[i];
        if (byte < 0x80) {
            int token = alphanumeric(byte);
            tokens += token & !inside;
            inside = token;
            if (!token) word = i + 1;
            i++;
            continue;
        }
        if (inside) tokens--;  /* its start was counted: the tokenizer counts the word again */
        size_t end = i;
        while (end < length && !docent_separates((unsigned char)bytes[end])) end++;
        int counted = 0, rc = counter(context, bytes + word, (int)(end - word), &counted);
        if (rc != SQLITE_OK) return rc;
        tokens += counted;
        inside = 0;
        i = end;
    }
    *count = tokens;
    return SQLITE_OK;
}

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

size_t docent_whole_tokens_end(const char *bytes, size_t from, size_t length) {
    size_t end = length;
    while (end > from && !docent_separates((unsigned char)bytes[end - 1])) end--;
    return end > from ? end : 0;
}

/* Fills `scan` with the window's tokens of `text`, reading the text only as far as that.
   `*base` is set to the offset in text->bytes that the scan's offsets count from. */
static int scan_window(const Fts5ExtensionApi *api, Fts5Context *fts, Text *text, Scan *scan, size_t *base) {
    size_t position = 0;
    int count = text->tokens_before, rc;
    TableTokenizer table = { api, fts };
    /* Past whole stretches that end before the window, counting their tokens. */
    for (;;) {
        if ((rc = text_more(text, position + BLOCK + 1)) != SQLITE_OK) return rc;
        if (text->length - position <= BLOCK) break;  /* the rest is all there and short */
        size_t end = docent_whole_tokens_end(text->bytes, position, position + BLOCK);
        if (end == 0) break;  /* one token longer than a stretch: tokenize from here */
        int tokens = 0;
        if ((rc = docent_count_tokens(table_count, &table, text->bytes + position, end - position, &tokens)) != SQLITE_OK) return rc;
        if (count + tokens > scan->first) break;  /* the window starts in this stretch */
        count += tokens;
        position = end;
        text_discard(text, position);  /* what is counted is not needed again */
        position = 0;
    }
    /* Then tokenize from there to the window's end, reading on until it is complete. */
    size_t wanted = position + BLOCK;
    for (;;) {
        if ((rc = text_more(text, wanted)) != SQLITE_OK) return rc;
        size_t end = text->complete ? text->length : docent_whole_tokens_end(text->bytes, position, text->length);
        Scan attempt = *scan;
        attempt.count = count;
        if (end > position) {
            rc = api->xTokenize(fts, text->bytes + position, (int)(end - position), &attempt, on_token);
            if (rc != SQLITE_OK && rc != SQLITE_DONE) return rc;
        }
        if (attempt.more || text->complete) {
            *scan = attempt;
            *base = position;
            return SQLITE_OK;
        }
        wanted = text->length + STEP;
    }
}

/* ---- The function. ---- */

static void snippet(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    (void)argc; (void)argv;
    int instances = 0, rc = api->xInstCount(fts, &instances);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }

    /* The column: the body when it matched, else the column of the first match (never the
       folders' words: a match there alone shows the body's start). */
    int column = -1;
    for (int i = 0; i < instances; i++) {
        int phrase, col, offset;
        if (api->xInst(fts, i, &phrase, &col, &offset) != SQLITE_OK || col == FOLDERS) continue;
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

    Text text = {0};
    text_init(&text);
    sqlite3 *db = sqlite3_context_db_handle(result);
    sqlite3_int64 id = api->xRowid(fts);
    rc = column == BODY || column == PARTS ? text_open_blob(&text, db, id, column, best_first) : text_open_row(&text, db, id, column);
    Scan scan = { .first = best_first, .last = best_first + WINDOW - 1 };
    size_t base = 0;
    if (rc == SQLITE_OK) rc = scan_window(api, fts, &text, &scan, &base);
    if (rc != SQLITE_OK) { text_free(&text); sqlite3_result_error_code(result, rc); return; }
    if (scan.seen == 0) { text_free(&text); sqlite3_result_text(result, "", 0, SQLITE_STATIC); return; }
    const char *window = text.bytes + base;

    /* The matched phrases in the window as byte ranges of it, in order, overlaps merged
       (CJK bigrams overlap: 目录 in 列出目录 is the second half of 出目 and all of 目录). */
    typedef struct { int start, end; } Range;
    Range ranges[WINDOW * 4];
    int count = 0;
    for (int i = 0; i < instances && count < WINDOW * 4; i++) {
        int phrase, col, offset;
        if (api->xInst(fts, i, &phrase, &col, &offset) != SQLITE_OK || col != column) continue;
        int last = offset + api->xPhraseSize(fts, phrase) - 1;
        if (offset < scan.first || last >= scan.first + scan.seen) continue;
        Range range = { scan.start[offset - scan.first], scan.end[last - scan.first] };
        int at = count++;
        while (at > 0 && ranges[at - 1].start > range.start) { ranges[at] = ranges[at - 1]; at--; }
        ranges[at] = range;
    }

    sqlite3_str *out = sqlite3_str_new(NULL);
    if (scan.first > 0) sqlite3_str_appendall(out, "…");
    int written = scan.start[0], finish = scan.end[scan.seen - 1];
    /* Never start inside a word: `__all__`'s token is `all`, but the fragment shows the word
       from its start (ASCII punctuation joined to it, a few bytes at most). */
    for (int back = 0; back < 8 && written > 0; back++) {
        unsigned char before = (unsigned char)window[written - 1];
        if (before >= 0x80 || before <= ' ' || alphanumeric(before) || before == '(' || before == '[' || before == '{'
            || before == '"' || before == '\'') break;
        written--;
    }
    for (int i = 0; i < count;) {
        Range merged = ranges[i++];
        while (i < count && ranges[i].start < merged.end) {
            if (ranges[i].end > merged.end) merged.end = ranges[i].end;
            i++;
        }
        if (merged.start < written) merged.start = written;
        if (merged.end <= merged.start) continue;
        sqlite3_str_append(out, window + written, merged.start - written);
        sqlite3_str_appendchar(out, 1, '\x02');
        sqlite3_str_append(out, window + merged.start, merged.end - merged.start);
        sqlite3_str_appendchar(out, 1, '\x03');
        written = merged.end;
    }
    if (finish > written) sqlite3_str_append(out, window + written, finish - written);
    if (scan.more) sqlite3_str_appendall(out, "…");
    text_free(&text);
    int size = sqlite3_str_length(out);
    char *fragment = sqlite3_str_finish(out);
    if (!fragment) { sqlite3_result_error_nomem(result); return; }
    sqlite3_result_text(result, fragment, size, sqlite3_free);
}

int docent_register_search_functions(void *connection) {
    fts5_api *api = docent_fts5_api(connection);
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    int rc = docent_register_tokenizer(api);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "docent_snippet", NULL, snippet, NULL);
    if (rc == SQLITE_OK) rc = docent_register_matches(api);
    if (rc == SQLITE_OK) rc = docent_register_sorted_ids(connection);
    if (rc == SQLITE_OK) rc = docent_register_length_codes(connection);
    return rc == SQLITE_OK ? docent_register_rank(connection, api) : rc;
}
