/*
 * docent_store_blocks: a long text stored in blocks, so that a snippet deep in it starts
 * reading at the block that holds its window instead of at the text's first byte.
 *
 * Format (method 2 of StoredText.swift): the byte 2; the number of blocks N (32 bits, little
 * endian); N entries of three 32-bit numbers: the block's compressed size, its text size, and
 * the tokens in the text before it; then each block's text as a Zstandard frame of its own.
 * Blocks end just after a separator (an ASCII byte that is not a letter or digit), so each
 * holds whole tokens, and "tokens before" is exact: counted as docent_snippet counts (runs of
 * ASCII letters and digits here, words with other bytes by the `docent` tokenizer).
 */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "docent_snippet.h"
#include "functions.h"

/* ---- The index's tokenizer outside any index: that of a private in-memory connection. ---- */

static fts5_api *tokenizers;
static pthread_once_t tokenizers_once = PTHREAD_ONCE_INIT;

static void tokenizers_open(void) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) return;
    fts5_api *api = docent_fts5_api(db);  /* the connection stays open for the process's life: the API lives in it */
    if (api && docent_register_tokenizer(api) == SQLITE_OK) tokenizers = api;
}

typedef struct {
    fts5_tokenizer module;
    Fts5Tokenizer *instance;
} Counter;

static int tokens_count(void *context, const char *bytes, int length, int *count) {
    Counter *tokenizer = context;
    return tokenizer->module.xTokenize(tokenizer->instance, count, FTS5_TOKENIZE_DOCUMENT, bytes, length, docent_count_token);
}

/* The index's tokenizer's splitting: `docent` over unicode61 as files_fts declares it
   (porter only stems, so it is left out). */
static int counter_open(Counter *tokenizer) {
    pthread_once(&tokenizers_once, tokenizers_open);
    const char *arguments[] = { "unicode61", "remove_diacritics", "2" };
    return docent_tokenizer_open(tokenizers, arguments, 3, &tokenizer->module, &tokenizer->instance);
}

/* ---- Storing. ---- */

static void put32(unsigned char *at, unsigned value) {
    at[0] = (unsigned char)value;
    at[1] = (unsigned char)(value >> 8);
    at[2] = (unsigned char)(value >> 16);
    at[3] = (unsigned char)(value >> 24);
}

int docent_store_blocks(const char *text, size_t length, size_t block_size, int level,
                        unsigned char **stored, size_t *stored_length) {
    *stored = NULL;
    *stored_length = 0;
    if (length >= 0xFFFFFFFFu || block_size == 0) return SQLITE_TOOBIG;
    /* Where the blocks end: about block_size apart, each just after a separator. */
    size_t capacity_blocks = length / block_size + 2, blocks = 0;
    size_t *ends = malloc(capacity_blocks * sizeof *ends);
    if (!ends) return SQLITE_NOMEM;
    for (size_t start = 0; start < length;) {
        size_t end = start + block_size >= length ? length : docent_whole_tokens_end(text, start, start + block_size);
        if (end == 0) {  /* no separator in a whole block: on to the next one */
            end = start + block_size;
            while (end < length && !docent_separates((unsigned char)text[end - 1])) end++;
        }
        if (blocks == capacity_blocks) {
            size_t *grown = realloc(ends, 2 * capacity_blocks * sizeof *ends);
            if (!grown) { free(ends); return SQLITE_NOMEM; }
            ends = grown;
            capacity_blocks *= 2;
        }
        ends[blocks++] = end;
        start = end;
    }
    if (blocks < 2) { free(ends); return SQLITE_DONE; }  /* one block: a plain frame says the same */

    size_t header = 5 + blocks * 12, capacity = header;
    for (size_t k = 0, start = 0; k < blocks; start = ends[k++]) capacity += ZSTD_compressBound(ends[k] - start);
    unsigned char *out = malloc(capacity);
    ZSTD_CCtx *context = ZSTD_createCCtx();
    Counter tokenizer = {0};
    int rc = out && context ? counter_open(&tokenizer) : SQLITE_NOMEM;
    size_t written = header;
    unsigned tokens = 0;
    if (rc == SQLITE_OK) {
        out[0] = 2;
        put32(out + 1, (unsigned)blocks);
    }
    for (size_t k = 0, start = 0; rc == SQLITE_OK && k < blocks; start = ends[k++]) {
        size_t size = ends[k] - start;
        size_t frame = ZSTD_compressCCtx(context, out + written, capacity - written, text + start, size, level);
        if (ZSTD_isError(frame)) { rc = SQLITE_ERROR; break; }
        put32(out + 5 + k * 12, (unsigned)frame);
        put32(out + 5 + k * 12 + 4, (unsigned)size);
        put32(out + 5 + k * 12 + 8, tokens);
        written += frame;
        int counted = 0;
        rc = docent_count_tokens(tokens_count, &tokenizer, text + start, size, &counted);
        tokens += (unsigned)counted;
    }
    if (tokenizer.instance) tokenizer.module.xDelete(tokenizer.instance);
    ZSTD_freeCCtx(context);
    free(ends);
    if (rc != SQLITE_OK) { free(out); return rc; }
    *stored = out;
    *stored_length = written;
    return SQLITE_OK;
}
