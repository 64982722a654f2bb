/*
 * The `docent` FTS5 tokenizer: Chinese, Japanese and Korean as overlapping character bigrams,
 * everything else through the tokenizer it wraps (by default `porter unicode61
 * remove_diacritics 2`, what files_fts used before it).
 *
 * unicode61 keeps a run of Han, Kana or Hangul whole, so a two-character word inside a
 * Chinese sentence was never a token of its own and never found. Here such a run of n
 * characters gives the n − 1 bigrams that overlap it (列出目录 → 列出 出目 目录; a run of one
 * character gives that character), the approach of Recoll and of Lucene's CJKBigramFilter.
 * A document's run also gives its last character alone, at the last bigram's position.
 * Queries are tokenized the same way, so a word of two characters is one bigram and a longer
 * one a phrase of bigrams, found wherever it stands in a sentence; a word of one character is
 * asked for as a prefix (FTSExpression), which matches the bigrams it starts.
 *
 * Decisions are local: a run ends at the first character that is not CJK, and every ASCII
 * byte is not CJK, so any stretch of text that starts and ends at an ASCII separator gives
 * the same tokens alone as in its text. docent_snippet and the blocks' token counts rely on
 * that (functions.h).
 *
 * Arguments: the tokenizer to wrap and its own arguments, e.g.
 * `tokenize = 'docent porter unicode61 remove_diacritics 2'`.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "docent_snippet.h"
#include "functions.h"

typedef struct {
    fts5_tokenizer inner;
    Fts5Tokenizer *instance;
} Tokenizer;

int docent_is_cjk(unsigned c) {
    if (c < 0x1100) return 0;
    return (c <= 0x11FF)                      /* Hangul Jamo */
        || (c >= 0x2E80 && c <= 0x2FDF)       /* CJK and Kangxi radicals */
        || (c >= 0x3005 && c <= 0x3007)       /* 々 〆 〇 */
        || (c >= 0x3021 && c <= 0x3029)       /* Hangzhou numerals */
        || (c >= 0x3031 && c <= 0x3035)       /* kana repeat marks */
        || (c >= 0x3038 && c <= 0x303C)
        || (c >= 0x3041 && c <= 0x309F)       /* Hiragana */
        || (c >= 0x30A1 && c <= 0x30FA)       /* Katakana (not ゠ or the middle dot ・) */
        || (c >= 0x30FC && c <= 0x30FF)       /* ー ヽ ヾ ヿ */
        || (c >= 0x3131 && c <= 0x318E)       /* Hangul compatibility Jamo */
        || (c >= 0x31F0 && c <= 0x31FF)       /* Katakana phonetic extensions */
        || (c >= 0x3400 && c <= 0x4DBF)       /* CJK extension A */
        || (c >= 0x4E00 && c <= 0x9FFF)       /* CJK unified ideographs */
        || (c >= 0xA960 && c <= 0xA97F)       /* Hangul Jamo extended A */
        || (c >= 0xAC00 && c <= 0xD7AF)       /* Hangul syllables */
        || (c >= 0xD7B0 && c <= 0xD7FF)       /* Hangul Jamo extended B */
        || (c >= 0xF900 && c <= 0xFAFF)       /* CJK compatibility ideographs */
        || (c >= 0xFF66 && c <= 0xFF9F)       /* halfwidth Katakana */
        || (c >= 0xFFA0 && c <= 0xFFDC)       /* halfwidth Hangul */
        || (c >= 0x20000 && c <= 0x323AF);    /* extensions B to H, compatibility supplement */
}

/* The code point at bytes[*i] (advancing *i past it), or 0xFFFD for a byte that does not
   begin a well-formed sequence (advancing one byte). */
static unsigned decode(const unsigned char *bytes, int length, int *i) {
    unsigned char first = bytes[*i];
    if (first < 0x80) { (*i)++; return first; }
    int size = first >= 0xF0 && first < 0xF5 ? 4 : first >= 0xE0 ? 3 : first >= 0xC2 && first < 0xE0 ? 2 : 0;
    if (size == 0 || *i + size > length) { (*i)++; return 0xFFFD; }
    unsigned c = first & (0x7F >> size);
    for (int k = 1; k < size; k++) {
        unsigned char next = bytes[*i + k];
        if ((next & 0xC0) != 0x80) { (*i)++; return 0xFFFD; }
        c = c << 6 | (next & 0x3F);
    }
    *i += size;
    return c;
}

typedef struct {
    void *context;
    int (*token)(void *, int, const char *, int, int, int);
    int base;
    int rc;  /* what the caller's callback last said: SQLITE_DONE stops everything */
} Shifted;

/* The wrapped tokenizer's tokens of a stretch, with offsets counted from the whole text.
   (unicode61 turns its callback's SQLITE_DONE into SQLITE_OK on return, so it is kept here.) */
static int shifted(void *context, int flags, const char *token, int length, int start, int end) {
    Shifted *shift = context;
    return shift->rc = shift->token(shift->context, flags, token, length, start + shift->base, end + shift->base);
}

static int tokenize_other(Tokenizer *tokenizer, void *context, int flags, const char *text, int from, int to,
                          int (*token)(void *, int, const char *, int, int, int)) {
    Shifted shift = { context, token, from, SQLITE_OK };
    int rc = tokenizer->inner.xTokenize(tokenizer->instance, &shift, flags, text + from, to - from, shifted);
    return rc == SQLITE_OK && shift.rc == SQLITE_DONE ? SQLITE_DONE : rc;
}

static int tokenize(Fts5Tokenizer *instance, void *context, int flags, const char *text, int length,
                    int (*token)(void *, int, const char *, int, int, int)) {
    Tokenizer *tokenizer = (Tokenizer *)instance;
    const unsigned char *bytes = (const unsigned char *)text;
    int other = 0;  /* where the stretch of non-CJK text being passed over began */
    int i = 0, rc = SQLITE_OK;
    while (i < length && rc == SQLITE_OK) {
        /* ASCII is never CJK: past it a word at a time. */
        if (bytes[i] < 0x80) { i++; continue; }
        int at = i;
        unsigned c = decode(bytes, length, &i);
        if (!docent_is_cjk(c)) continue;
        if (at > other && (rc = tokenize_other(tokenizer, context, flags, text, other, at, token)) != SQLITE_OK) break;
        /* The run: each character with the next, or the one character alone. */
        int previous = at, current = i, characters = 1;
        for (;;) {
            int next = current;
            if (next >= length || bytes[next] < 0x80 || !docent_is_cjk(decode(bytes, length, &next))) break;
            rc = token(context, 0, text + previous, next - previous, previous, next);
            if (rc != SQLITE_OK) break;
            characters++;
            previous = current;
            current = next;
        }
        if (rc == SQLITE_OK && characters == 1) rc = token(context, 0, text + at, current - at, at, current);
        /* The run's last character starts no bigram: in a document it is also indexed alone,
           at the last bigram's position, so a one-character query (a prefix) finds it too. */
        else if (rc == SQLITE_OK && (flags & FTS5_TOKENIZE_DOCUMENT))
            rc = token(context, FTS5_TOKEN_COLOCATED, text + previous, current - previous, previous, current);
        i = other = current;
    }
    if (rc == SQLITE_OK && length > other) rc = tokenize_other(tokenizer, context, flags, text, other, length, token);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;  /* as FTS5's own tokenizers answer a callback's stop */
}

static void destroy(Fts5Tokenizer *instance) {
    Tokenizer *tokenizer = (Tokenizer *)instance;
    if (!tokenizer) return;
    if (tokenizer->instance) tokenizer->inner.xDelete(tokenizer->instance);
    free(tokenizer);
}

static int create(void *user, const char **arguments, int count, Fts5Tokenizer **out) {
    fts5_api *api = user;
    static const char *defaults[] = { "porter", "unicode61", "remove_diacritics", "2" };
    if (count == 0) { arguments = defaults; count = 4; }
    Tokenizer *tokenizer = calloc(1, sizeof *tokenizer);
    if (!tokenizer) return SQLITE_NOMEM;
    void *inner_user = NULL;
    int rc = api->xFindTokenizer(api, arguments[0], &inner_user, &tokenizer->inner);
    if (rc == SQLITE_OK) rc = tokenizer->inner.xCreate(inner_user, arguments + 1, count - 1, &tokenizer->instance);
    if (rc != SQLITE_OK) { destroy((Fts5Tokenizer *)tokenizer); return rc; }
    *out = (Fts5Tokenizer *)tokenizer;
    return SQLITE_OK;
}

int docent_tokenizer_open(fts5_api *api, const char **arguments, int count, fts5_tokenizer *module, Fts5Tokenizer **instance) {
    void *user = NULL;
    *instance = NULL;
    int rc = api ? api->xFindTokenizer(api, "docent", &user, module) : SQLITE_ERROR;
    return rc == SQLITE_OK ? module->xCreate(user, arguments, count, instance) : rc;
}

int docent_register_tokenizer(fts5_api *api) {
    static fts5_tokenizer module = { create, destroy, tokenize };
    return api->xCreateTokenizer(api, "docent", api, &module, NULL);
}

/* ---- The index's tokens of a text, outside any table (spelling suggestions). ---- */

typedef struct {
    char *out;
    int capacity, length;
} Joined;

static int join_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)start; (void)end;
    Joined *joined = context;
    if (flags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
    if (joined->length + length + 1 > joined->capacity) return SQLITE_FULL;
    memcpy(joined->out + joined->length, token, (size_t)length);
    joined->length += length;
    joined->out[joined->length++] = '\n';
    return SQLITE_OK;
}

int docent_index_tokens(void *db, const char *text, int length, char *out, int capacity) {
    return docent_query_tokens(db, text, length, 0, out, capacity);
}

int docent_query_tokens(void *db, const char *text, int length, int prefix, char *out, int capacity) {
    fts5_tokenizer module;
    Fts5Tokenizer *instance;
    if (docent_tokenizer_open(docent_fts5_api(db), NULL, 0, &module, &instance) != SQLITE_OK) return -1;
    Joined joined = { out, capacity, 0 };
    int flags = FTS5_TOKENIZE_QUERY | (prefix ? FTS5_TOKENIZE_PREFIX : 0);
    int rc = module.xTokenize(instance, &joined, flags, text, length, join_token);
    module.xDelete(instance);
    return rc == SQLITE_OK ? joined.length : -1;
}

/* ---- A self-check, for the fuzzer and the tests. ---- */

typedef struct {
    int length, tokens, bad;
    int last_start;
} Checked;

static int check_token(void *context, int flags, const char *token, int length, int start, int end) {
    Checked *checked = context;
    if (length <= 0 || start < 0 || end > checked->length || start >= end || !token) checked->bad = 1;
    if (!(flags & FTS5_TOKEN_COLOCATED)) {
        if (start < checked->last_start) checked->bad = 1;  /* tokens come in order */
        checked->last_start = start;
        checked->tokens++;
    } else if (checked->tokens == 0) {
        checked->bad = 1;  /* colocated with nothing */
    }
    return SQLITE_OK;
}

static int check_count(void *context, const char *bytes, int length, int *count) {
    Tokenizer *tokenizer = context;
    *count = 0;
    return tokenize((Fts5Tokenizer *)tokenizer, count, FTS5_TOKENIZE_DOCUMENT, bytes, length, docent_count_token);
}

int docent_tokenizer_check(void *db, const char *text, int length) {
    fts5_tokenizer module;
    Fts5Tokenizer *instance;
    if (docent_tokenizer_open(docent_fts5_api(db), NULL, 0, &module, &instance) != SQLITE_OK) return -1;
    int problem = 0;
    /* Offsets inside the text, in order; as a query too. */
    for (int mode = 0; mode < 2 && !problem; mode++) {
        Checked checked = { length, 0, 0, 0 };
        int rc = module.xTokenize(instance, &checked, mode ? FTS5_TOKENIZE_QUERY : FTS5_TOKENIZE_DOCUMENT, text, length, check_token);
        if (rc != SQLITE_OK || checked.bad) problem = 1 + mode;
    }
    /* The snippet's count of a stretch ending at a separator equals the tokenizer's. */
    size_t end = docent_whole_tokens_end(text, 0, (size_t)length);
    if (!problem && end > 0) {
        int expected = 0, counted = 0;
        int rc = module.xTokenize(instance, &expected, FTS5_TOKENIZE_DOCUMENT, text, (int)end, docent_count_token);
        if (rc == SQLITE_OK) rc = docent_count_tokens(check_count, instance, text, end, &counted);
        if (rc != SQLITE_OK || counted != expected) problem = 3;
    }
    module.xDelete(instance);
    return problem;
}
