/*
 * A file's words as a PostgreSQL `tsvector`, made by the `docent` tokenizer (tokenizer.c) on
 * the client, in the binary form the server's tsvectorrecv reads: the same words, stems and
 * CJK bigrams as the SQLite index, and the server spends no time parsing or stemming (a cold
 * index into PostgreSQL spent half of the server's time in to_tsvector).
 *
 * The format (PostgreSQL's tsvector.c, tsvectorrecv; integers big-endian): the number of
 * lexemes (int32), then each lexeme as its bytes and a NUL, its number of positions (uint16)
 * and the positions (uint16: the weight in the two high bits, A = 3 … D = 0, the position in
 * the other 14). Lexemes are sent sorted as the server sorts them (bytes, then the shorter
 * first) and unique, positions strictly increasing; the server checks all of it.
 *
 * PostgreSQL's limits, kept as to_tsvector keeps them: a lexeme of at most 2,047 bytes
 * (longer tokens are left out), at most 256 positions a lexeme, positions counted from 1
 * and held at 16,383 past it, and at most a megabyte of lexemes with their positions
 * (counted as tsvectorrecv counts them). A text past that megabyte keeps the positions of
 * its name, title and metadata words (weights A to C) and drops the others' (a phrase in
 * the text is then matched as all its words); if its distinct words alone are still over,
 * words are kept in the order the text first used them until the megabyte is full.
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "docent_snippet.h"
#include "functions.h"

enum { MAX_LEXEME = 2047, MAX_POSITIONS = 256, LAST_POSITION = 16383, MAX_BYTES = (1 << 20) - 1 };

typedef struct {
    uint32_t offset;     /* the lexeme's bytes in the arena */
    uint16_t length;
    uint16_t count;      /* positions held */
    uint16_t capacity;
    uint32_t hash;
    uint32_t first;      /* the order of first use */
    uint16_t *positions;
} Lexeme;

typedef struct {
    Lexeme *lexemes;
    int count, capacity;
    int32_t *slots;      /* open addressing: index + 1 of a lexeme, 0 empty */
    uint32_t mask;
    char *arena;
    size_t arena_length, arena_capacity;
    int position;        /* the last position given */
    int weight;          /* of the text being tokenized */
    int failed;
} Vector;

static uint32_t hash_bytes(const char *bytes, int length) {
    uint32_t hash = 2166136261u;
    for (int i = 0; i < length; i++) hash = (hash ^ (unsigned char)bytes[i]) * 16777619u;
    return hash;
}

static int grow_slots(Vector *vector) {
    uint32_t size = vector->mask ? (vector->mask + 1) * 2 : 1024;
    int32_t *slots = calloc(size, sizeof *slots);
    if (!slots) return SQLITE_NOMEM;
    for (int i = 0; i < vector->count; i++) {
        uint32_t at = vector->lexemes[i].hash & (size - 1);
        while (slots[at]) at = (at + 1) & (size - 1);
        slots[at] = i + 1;
    }
    free(vector->slots);
    vector->slots = slots;
    vector->mask = size - 1;
    return SQLITE_OK;
}

/* The lexeme for these bytes, added when new; NULL when out of memory. */
static Lexeme *lexeme(Vector *vector, const char *bytes, int length) {
    if ((uint32_t)vector->count * 2 >= vector->mask && grow_slots(vector) != SQLITE_OK) return NULL;
    uint32_t hash = hash_bytes(bytes, length), at = hash & vector->mask;
    for (int32_t slot; (slot = vector->slots[at]) != 0; at = (at + 1) & vector->mask) {
        Lexeme *found = &vector->lexemes[slot - 1];
        if (found->hash == hash && found->length == length && memcmp(vector->arena + found->offset, bytes, (size_t)length) == 0)
            return found;
    }
    if (vector->count == vector->capacity) {
        int capacity = vector->capacity ? vector->capacity * 2 : 256;
        Lexeme *lexemes = realloc(vector->lexemes, (size_t)capacity * sizeof *lexemes);
        if (!lexemes) return NULL;
        vector->lexemes = lexemes;
        vector->capacity = capacity;
    }
    if (vector->arena_length + (size_t)length > vector->arena_capacity) {
        size_t capacity = vector->arena_capacity ? vector->arena_capacity : 4096;
        while (capacity < vector->arena_length + (size_t)length) capacity *= 2;
        char *arena = realloc(vector->arena, capacity);
        if (!arena) return NULL;
        vector->arena = arena;
        vector->arena_capacity = capacity;
    }
    memcpy(vector->arena + vector->arena_length, bytes, (size_t)length);
    Lexeme *added = &vector->lexemes[vector->count];
    *added = (Lexeme){ (uint32_t)vector->arena_length, (uint16_t)length, 0, 0, hash, (uint32_t)vector->count, NULL };
    vector->arena_length += (size_t)length;
    vector->slots[at] = ++vector->count;
    return added;
}

static int add_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)start; (void)end;
    Vector *vector = context;
    /* A colocated token (a CJK run's last character) shares the previous token's position. */
    if (!(flags & FTS5_TOKEN_COLOCATED) || vector->position == 0) vector->position++;
    if (length <= 0 || length > MAX_LEXEME || memchr(token, 0, (size_t)length)) return SQLITE_OK;
    Lexeme *found = lexeme(vector, token, length);
    if (!found) { vector->failed = 1; return SQLITE_NOMEM; }
    uint16_t position = (uint16_t)(vector->position < LAST_POSITION ? vector->position : LAST_POSITION);
    if (found->count == MAX_POSITIONS || (found->count > 0 && (found->positions[found->count - 1] & 0x3FFF) >= position))
        return SQLITE_OK;
    if (found->count == found->capacity) {
        uint16_t capacity = found->capacity ? (uint16_t)(found->capacity * 4 < MAX_POSITIONS ? found->capacity * 4 : MAX_POSITIONS) : 2;
        uint16_t *positions = realloc(found->positions, capacity * sizeof *positions);
        if (!positions) { vector->failed = 1; return SQLITE_NOMEM; }
        found->positions = positions;
        found->capacity = capacity;
    }
    found->positions[found->count++] = (uint16_t)(vector->weight << 14 | position);
    return SQLITE_OK;
}

/* tsvectorrecv's count of the bytes a lexeme takes (it counts a position's entry as 4). */
static size_t lexeme_bytes(size_t before, const Lexeme *lexeme) {
    size_t after = before + lexeme->length;
    return lexeme->count ? ((after + 1) & ~(size_t)1) + ((size_t)lexeme->count + 1) * 4 : after;
}

static size_t total_bytes(const Vector *vector) {
    size_t bytes = 0;
    for (int i = 0; i < vector->count; i++) bytes = lexeme_bytes(bytes, &vector->lexemes[i]);
    return bytes;
}

static int by_bytes(const void *a, const void *b, void *arena) {
    const Lexeme *x = a, *y = b;
    int shorter = x->length < y->length ? x->length : y->length;
    int order = memcmp((const char *)arena + x->offset, (const char *)arena + y->offset, (size_t)shorter);
    return order ? order : (int)x->length - (int)y->length;
}

static int by_first_use(const void *a, const void *b) {
    const Lexeme *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static void vector_free(Vector *vector) {
    for (int i = 0; i < vector->count; i++) free(vector->lexemes[i].positions);
    free(vector->lexemes);
    free(vector->slots);
    free(vector->arena);
}

/* Brings the vector within the megabyte (see the top of the file). */
static void fit(Vector *vector) {
    if (total_bytes(vector) <= MAX_BYTES) return;
    for (int i = 0; i < vector->count; i++) {
        Lexeme *lexeme = &vector->lexemes[i];
        int kept = 0;
        for (int k = 0; k < lexeme->count; k++) if (lexeme->positions[k] >> 14) lexeme->positions[kept++] = lexeme->positions[k];
        lexeme->count = (uint16_t)kept;
    }
    if (total_bytes(vector) <= MAX_BYTES) return;
    /* The order lexemes are kept in does not change the bytes they take but for alignment:
       counted in the order of first use, stopped where the next would pass the bound. */
    qsort(vector->lexemes, (size_t)vector->count, sizeof *vector->lexemes, by_first_use);
    size_t bytes = 0;
    int kept = 0;
    for (; kept < vector->count; kept++) {
        size_t next = lexeme_bytes(bytes, &vector->lexemes[kept]);
        if (next + 1 > MAX_BYTES) break;  /* one byte of slack for the alignment of another order */
        bytes = next;
    }
    for (int i = kept; i < vector->count; i++) free(vector->lexemes[i].positions);
    vector->count = kept;
}

static void put16(unsigned char *out, unsigned value) { out[0] = (unsigned char)(value >> 8); out[1] = (unsigned char)value; }

int docent_tsvector(void *db, const char *const *texts, const int *lengths, const int *weights, int count,
                    unsigned char **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    fts5_tokenizer module;
    Fts5Tokenizer *instance;
    if (docent_tokenizer_open(docent_fts5_api(db), NULL, 0, &module, &instance) != SQLITE_OK) return -1;
    Vector vector = { 0 };
    int rc = SQLITE_OK;
    for (int i = 0; i < count && rc == SQLITE_OK; i++) {
        if (!texts[i] || lengths[i] <= 0) continue;
        vector.weight = weights[i] & 3;
        rc = module.xTokenize(instance, &vector, FTS5_TOKENIZE_DOCUMENT, texts[i], lengths[i], add_token);
    }
    module.xDelete(instance);
    if (rc != SQLITE_OK || vector.failed) { vector_free(&vector); return rc != SQLITE_OK ? rc : SQLITE_NOMEM; }
    fit(&vector);
    qsort_r(vector.lexemes, (size_t)vector.count, sizeof *vector.lexemes, by_bytes, vector.arena);
    size_t size = 4;
    for (int i = 0; i < vector.count; i++) size += vector.lexemes[i].length + 3u + 2u * vector.lexemes[i].count;
    unsigned char *bytes = malloc(size);
    if (!bytes) { vector_free(&vector); return SQLITE_NOMEM; }
    bytes[0] = (unsigned char)(vector.count >> 24);
    bytes[1] = (unsigned char)(vector.count >> 16);
    put16(bytes + 2, (unsigned)vector.count & 0xFFFF);
    size_t at = 4;
    for (int i = 0; i < vector.count; i++) {
        const Lexeme *lexeme = &vector.lexemes[i];
        memcpy(bytes + at, vector.arena + lexeme->offset, lexeme->length);
        at += lexeme->length;
        bytes[at++] = 0;
        put16(bytes + at, lexeme->count);
        at += 2;
        for (int k = 0; k < lexeme->count; k++, at += 2) put16(bytes + at, lexeme->positions[k]);
    }
    vector_free(&vector);
    *out = bytes;
    *out_length = at;
    return SQLITE_OK;
}
