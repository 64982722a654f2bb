/*
 * docent_rank(fts, w0, w1, ...): FTS5's bm25() — the same formula, the same order — made
 * cheaper for the words that match most files, where ranking is nearly all of a search's
 * cost (38,000 files, "python" in 11,500 of them: 13 ms in bm25(), of which 10 ms is looking
 * up each row's length in the docsize table).
 *
 * - A row's length is remembered per connection, from one search to the next, until the
 *   database changes (SQLITE_FCNTL_DATA_VERSION, read once a search): typing "s", "sy",
 *   "sys" ranks mostly the same rows again.
 * - Each phrase's occurrences are read with xPhraseFirst/xPhraseNext rather than through
 *   xInst, which first builds a merged array of every instance of every phrase.
 *
 * Both sum the same weights in the same order per phrase as bm25() (an occurrence in column
 * c counts w_c; k1 = 1.2, b = 0.75; an IDF at or below zero is 1e-6), so scores are equal —
 * but for a query of one phrase, whose IDF is left out: the same factor for every row, the
 * same order, and counting the phrase's rows for it was a second pass over its postings.
 * Scores compare within one search, never across searches.
 * Like bm25() it returns the score negated: lower is better.
 *
 * docent_rank(fts, w0, …, w_last, k): the same, for a search that keeps only the best k rows
 * (its LIMIT plus its OFFSET), with the work bounded by them (max-score pruning, as in
 * Turtle and Flood's MaxScore, at the level of one row). The function keeps the k best
 * scores seen so far. A row's score has an upper bound that needs only its occurrences,
 * already read: BM25 falls as a row grows longer, and a row is at least as long, in each
 * column, as the furthest of its occurrences there reaches (an occurrence at offset 150 of
 * the body: 151 tokens at least). When that bound is below the k-th best score so far,
 * the row cannot be among the k best: its length is never looked up and the bound is returned
 * in place of its score (also below the k-th best, so ORDER BY … LIMIT k drops it as it would
 * have dropped the row's score). Rows that may be among the best get their exact score. The
 * k rows kept, and their order, are those of ranking every row (a property test holds them
 * to it). A row scored twice in one statement is not counted twice among the best.
 *
 * docent_score(fts, w0, …, w_last): the same sum with Docent's own parameters, k1 = 5 and
 * b = 1, chosen on the judged questions and on simulated known items (`docent-bench
 * relevance`, docs/Benchmarks.md): there a word's count against the file's length says more
 * than bm25()'s 1.2 and 0.75 let it. They make a poor bound for pruning, though (a row's best
 * possible score is (k1 + 1) times a typical one, not 2.2 times): ranking every match by them
 * cost a common word at a million files 69 → 197 ms. So ranking is in two stages, as search
 * engines cascade a cheap ranking into a finer one: docent_rank, pruned, picks the k best by
 * bm25(); each row it keeps among them gets its docent_score as well, from the figures already
 * at hand, and `docent_rescored(rowid)` returns it until the connection's next docent_rank
 * (the search orders its window of best rows by it), and `docent_kept_proximity(rowid)` the
 * row's docent_proximity, worked out while its positions were at hand: asked of FTS5 with
 * `rowid IN (…)`, the match ran again for each row (5–10 ms for two words at a million files).
 * docent_score itself, unpruned, scores rows given by id (`rowid IN (…)`) on the same scale.
 *
 * docent_proximity(fts): how near the query's words stand in the row — the mean, over each
 * pair of consecutive phrases the row holds both of, of their closest distance in tokens within
 * one column (1 for words side by side; PROXIMITY_FAR for a pair that never shares a column; 0
 * for a query of one phrase, or a row holding no two consecutive phrases). Tao and Zhai ("An Exploration of Proximity Measures in Information Retrieval",
 * SIGIR 2007) found the minimum pair distance the most useful. Asked only for the rows a
 * search ranks again (`Relevance`), never for every match: over every match of two common
 * words it cost 7% of the search. Only each phrase's first PROXIMITY_POSITIONS occurrences
 * are looked at.
 */
#include <math.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "functions.h"

enum { PAGE_BITS = 12, PAGE = 1 << PAGE_BITS };
enum { PROXIMITY_POSITIONS = 256, PROXIMITY_FAR = 1000 };
/* Columns whose reach bounds a row's length (a table with more: the rest count as reaching 0). */
enum { REACH_COLUMNS = 16 };

/* Row lengths in tokens (+1; 0 is "not known"), in pages of PAGE rows made as needed. */
typedef struct {
    sqlite3_int64 version;       /* the database's data version they were read at */
    int known;                   /* `version` has been read */
    int **pages;
    size_t count;                /* of `pages` */
    /* The last docent_rank's kept rows, their docent_score and their docent_proximity (open
       addressing, rowid + 1 as key; two values a row). */
    sqlite3_int64 *rescoredRows;
    double *rescoredScores;
    size_t rescoredCount, rescoredCapacity;
} Lengths;

/* BM25's parameters of docent_score. */
static const double SCORE_K1 = 5.0, SCORE_B = 1.0;

static void rescored_clear(Lengths *lengths) {
    if (lengths->rescoredRows) memset(lengths->rescoredRows, 0, lengths->rescoredCapacity * sizeof *lengths->rescoredRows);
    lengths->rescoredCount = 0;
}

static size_t rescored_slot(const Lengths *lengths, sqlite3_int64 rowid) {
    size_t mask = lengths->rescoredCapacity - 1, at = (size_t)((sqlite3_uint64)rowid * 0x9E3779B97F4A7C15ull >> 17) & mask;
    while (lengths->rescoredRows[at] != 0 && lengths->rescoredRows[at] != rowid + 1) at = (at + 1) & mask;
    return at;
}

/* Remembers `rowid`'s docent_score and proximity (nothing when memory runs out: the search keeps
   bm25()'s order, and asks FTS5 for the proximity). */
static void rescored_put(Lengths *lengths, sqlite3_int64 rowid, double score, double near) {
    if ((lengths->rescoredCount + 1) * 2 > lengths->rescoredCapacity) {
        size_t capacity = lengths->rescoredCapacity ? lengths->rescoredCapacity * 2 : 256;
        sqlite3_int64 *rows = calloc(capacity, sizeof *rows);
        double *scores = malloc(2 * capacity * sizeof *scores);
        if (!rows || !scores) { free(rows); free(scores); return; }
        Lengths grown = { .rescoredRows = rows, .rescoredScores = scores, .rescoredCapacity = capacity };
        for (size_t i = 0; i < lengths->rescoredCapacity; i++) {
            if (lengths->rescoredRows[i] == 0) continue;
            size_t at = rescored_slot(&grown, lengths->rescoredRows[i] - 1);
            rows[at] = lengths->rescoredRows[i];
            scores[2 * at] = lengths->rescoredScores[2 * i];
            scores[2 * at + 1] = lengths->rescoredScores[2 * i + 1];
        }
        free(lengths->rescoredRows);
        free(lengths->rescoredScores);
        lengths->rescoredRows = rows;
        lengths->rescoredScores = scores;
        lengths->rescoredCapacity = capacity;
    }
    size_t at = rescored_slot(lengths, rowid);
    if (lengths->rescoredRows[at] == 0) lengths->rescoredCount++;
    lengths->rescoredRows[at] = rowid + 1;
    lengths->rescoredScores[2 * at] = score;
    lengths->rescoredScores[2 * at + 1] = near;
}

static void lengths_clear(Lengths *lengths) {
    for (size_t i = 0; i < lengths->count; i++) free(lengths->pages[i]);
    free(lengths->pages);
    lengths->pages = NULL;
    lengths->count = 0;
}

static void lengths_free(void *value) {
    Lengths *lengths = value;
    lengths_clear(lengths);
    free(lengths->rescoredRows);
    free(lengths->rescoredScores);
    free(lengths);
}

/* The slot of `rowid`, or NULL when it has none (out of range, out of memory). */
static int *lengths_slot(Lengths *lengths, sqlite3_int64 rowid) {
    if (rowid < 0 || rowid >= ((sqlite3_int64)1 << 31)) return NULL;
    size_t index = (size_t)(rowid >> PAGE_BITS);
    if (index >= lengths->count) {
        size_t count = index + 1 > 2 * lengths->count ? index + 1 : 2 * lengths->count;
        int **pages = realloc(lengths->pages, count * sizeof *pages);
        if (!pages) return NULL;
        memset(pages + lengths->count, 0, (count - lengths->count) * sizeof *pages);
        lengths->pages = pages;
        lengths->count = count;
    }
    int **page = &lengths->pages[index];
    if (!*page && !(*page = calloc(PAGE, sizeof **page))) return NULL;
    return &(*page)[rowid & (PAGE - 1)];
}

/* What one search needs of the whole table, worked out at its first row. */
typedef struct {
    int phrases;
    int columns;                 /* of the table, each with its weight */
    double *weight;              /* an occurrence's weight in each column (1 where none was given) */
    double average;              /* tokens per row */
    double *idf;                 /* per phrase */
    double *frequency;           /* per phrase, for the row at hand */
    int top;                     /* k: the rows the search keeps (0: every row ranked) */
    int held;                    /* of the best scores so far, at most `top` */
    double *best;                /* a min-heap of the best scores so far */
    sqlite3_int64 *bestRow;      /* their rows, in the same places */
    sqlite3 *db;
    LengthCodes codes;           /* lengths from below, read as pruning needs them (lengths.c) */
} Query;

static void query_free(void *pointer) {
    Query *query = pointer;
    docent_length_codes_close(&query->codes);
    sqlite3_free(query);
}

/* The least length of the row at hand: its occurrences' reach (`shortest`), or its length code
   when that says more. */
static double least_length(const Fts5ExtensionApi *api, Fts5Context *fts, Query *query, sqlite3_int64 shortest) {
    sqlite3_int64 coded = docent_length_at_least(&query->codes, query->db, api->xRowid(fts));
    return (double)(coded > shortest ? coded : shortest);
}

static int top_add(Query *query, sqlite3_int64 row, double score);

/* Adds `row`'s `score` to the best so far as top_add does, but a row already among them is
   left as it is (a row scored twice in one statement); whether it is among them now. */
static int best_add(Query *query, sqlite3_int64 row, double score) {
    for (int i = 0; i < query->held; i++) if (query->bestRow[i] == row) return 1;
    return top_add(query, row, score);
}

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
    (void)api; (void)fts;
    ++*(sqlite3_int64 *)context;
    return SQLITE_OK;
}

/* Forgets the remembered lengths when the database changed since they were read. */
static void lengths_check(Lengths *lengths, sqlite3 *db) {
    sqlite3_int64 version = 0;
    int known = sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK;
    if (known && lengths->known && version == lengths->version) return;
    lengths_clear(lengths);
    lengths->version = version;
    lengths->known = known;  /* a version that cannot be read is never trusted */
}

/* The query's figures, worked out at its first row; the remembered lengths checked then too. */
static int query_data(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv,
                      Query **out) {
    Query *query = api->xGetAuxdata(fts, 0);
    if (query) { *out = query; return SQLITE_OK; }
    Lengths *lengths = api->xUserData(fts);
    lengths_check(lengths, sqlite3_context_db_handle(result));
    int phrases = api->xPhraseCount(fts), columns = api->xColumnCount(fts);
    sqlite3_int64 k = argc > columns ? sqlite3_value_int64(argv[columns]) : 0;
    int top = k > 0 && k <= 100000 ? (int)k : 0;
    query = sqlite3_malloc64(sizeof *query + (size_t)(phrases * 2 + top + columns) * sizeof(double) + (size_t)top * sizeof(sqlite3_int64));
    if (!query) return SQLITE_NOMEM;
    query->phrases = phrases;
    query->columns = columns;
    query->db = sqlite3_context_db_handle(result);
    memset(&query->codes, 0, sizeof query->codes);
    query->idf = (double *)&query[1];
    query->frequency = query->idf + phrases;
    query->top = top;
    query->held = 0;
    if (top > 0) rescored_clear(lengths);
    query->best = query->frequency + phrases;
    query->bestRow = (sqlite3_int64 *)(query->best + top);
    query->weight = (double *)(query->bestRow + top);
    for (int c = 0; c < columns; c++) query->weight[c] = argc > c ? sqlite3_value_double(argv[c]) : 1.0;
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc == SQLITE_OK) query->average = (double)tokens / (double)rows;
    /* A query of one phrase weighs it by 1, not its IDF: a factor the same for every row, so
       the same order, without FTS5 counting the phrase's rows first (a second pass over its
       postings: 9–12% of a common word's or a phrase's search at a million files). */
    for (int i = 0; rc == SQLITE_OK && i < phrases; i++) {
        if (phrases == 1) { query->idf[i] = 1.0; break; }
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(fts, i, &hits, count_row);
        double idf = log((rows - hits + 0.5) / (hits + 0.5));
        query->idf[i] = idf <= 0.0 ? 1e-6 : idf;
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, query, query_free);
    else sqlite3_free(query);
    if (rc == SQLITE_OK) *out = query;
    return rc;
}

/* The row's length in tokens, remembered while the database stays as it was. */
static int row_length(const Fts5ExtensionApi *api, Fts5Context *fts, Lengths *lengths, int *length) {
    int *slot = lengths->known ? lengths_slot(lengths, api->xRowid(fts)) : NULL;
    if (slot && *slot > 0) { *length = *slot - 1; return SQLITE_OK; }
    int rc = api->xColumnSize(fts, -1, length);
    if (rc == SQLITE_OK && slot) *slot = *length + 1;
    return rc;
}

/* BM25 of the row at hand: the query's figures, the row's weighted frequencies, its length. */
static double bm25(const Query *query, double d, double k1, double b) {
    double score = 0;
    for (int i = 0; i < query->phrases; i++) {
        double f = query->frequency[i];
        score += query->idf[i] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * d / query->average)));
    }
    return score;
}

/* The closest two of positions x and y (each `column << 24 | offset`, ascending) in one column. */
static int closest(const int *x, int nx, const int *y, int ny) {
    int i = 0, j = 0, best = PROXIMITY_FAR;
    while (i < nx && j < ny) {
        if (x[i] >> 24 == y[j] >> 24) {
            int distance = abs((x[i] & 0xFFFFFF) - (y[j] & 0xFFFFFF));
            if (distance >= 1 && distance < best) best = distance;
        }
        if (x[i] < y[j]) i++; else j++;
    }
    return best;
}

/* docent_proximity's value for the row at hand, into `*near`. */
static int row_proximity(const Fts5ExtensionApi *api, Fts5Context *fts, double *near) {
    int phrases = api->xPhraseCount(fts);
    if (phrases < 2) { *near = 0; return SQLITE_OK; }
    int *positions = sqlite3_malloc64((size_t)phrases * (PROXIMITY_POSITIONS + 1) * sizeof(int));
    if (!positions) return SQLITE_NOMEM;
    int *counts = positions + (size_t)phrases * PROXIMITY_POSITIONS;
    for (int i = 0; i < phrases; i++) {
        Fts5PhraseIter iterator;
        int column = 0, offset = 0, kept = 0;
        int rc = api->xPhraseFirst(fts, i, &iterator, &column, &offset);
        if (rc != SQLITE_OK) { sqlite3_free(positions); return rc; }
        while (column >= 0 && kept < PROXIMITY_POSITIONS) {
            if (offset < 0xFFFFFF) positions[(size_t)i * PROXIMITY_POSITIONS + kept++] = column << 24 | offset;
            api->xPhraseNext(fts, &iterator, &column, &offset);
        }
        counts[i] = kept;
    }
    /* Pairs with a phrase the row does not hold (an alternative of a query widened by a
       compound, `(file AND system) OR filesystem`) are left out; none left: 0, not known. */
    double distances = 0;
    int pairs = 0;
    for (int i = 0; i + 1 < phrases; i++) {
        if (counts[i] == 0 || counts[i + 1] == 0) continue;
        distances += closest(positions + (size_t)i * PROXIMITY_POSITIONS, counts[i],
                             positions + (size_t)(i + 1) * PROXIMITY_POSITIONS, counts[i + 1]);
        pairs++;
    }
    sqlite3_free(positions);
    *near = pairs > 0 ? distances / pairs : 0;
    return SQLITE_OK;
}

/* The row at hand's weighted count of each phrase, into `query->frequency`, and how long its
   occurrences show it to be at least, into `*shortest`: the furthest offset + 1 in each column,
   summed — a bound of its length from below, with no lookup. */
static int row_frequencies(const Fts5ExtensionApi *api, Fts5Context *fts, Query *query, sqlite3_int64 *shortest) {
    sqlite3_int64 reach[REACH_COLUMNS] = {0};
    for (int i = 0; i < query->phrases; i++) {
        double frequency = 0;
        Fts5PhraseIter iterator;
        int column = 0, offset = 0;
        int rc = api->xPhraseFirst(fts, i, &iterator, &column, &offset);
        if (rc != SQLITE_OK) return rc;
        while (column >= 0) {
            frequency += column < query->columns ? query->weight[column] : 1.0;
            if (column < REACH_COLUMNS && offset >= reach[column]) reach[column] = (sqlite3_int64)offset + 1;
            api->xPhraseNext(fts, &iterator, &column, &offset);
        }
        query->frequency[i] = frequency;
    }
    *shortest = 0;
    for (int c = 0; c < REACH_COLUMNS; c++) *shortest += reach[c];
    return SQLITE_OK;
}

/* Remembers the kept row's docent_score and docent_proximity for the search's second stage. */
static void keep_rescored(const Fts5ExtensionApi *api, Fts5Context *fts, const Query *query, Lengths *lengths,
                          sqlite3_int64 rowid, int length) {
    double near = -1;  /* not known: the search asks docent_proximity */
    if (row_proximity(api, fts, &near) != SQLITE_OK) near = -1;
    rescored_put(lengths, rowid, bm25(query, (double)length, SCORE_K1, SCORE_B), near);
}

static void rank_with(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv,
                      double k1, double b) {
    Query *query = NULL;
    int rc = query_data(api, fts, result, argc, argv, &query);
    sqlite3_int64 shortest = 0;
    if (rc == SQLITE_OK) rc = row_frequencies(api, fts, query, &shortest);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    if (query->top > 0 && query->held == query->top) {
        /* The row's best possible score: as if it were no longer than it is known to be at least. */
        double bound = bm25(query, least_length(api, fts, query, shortest), k1, b);
        if (bound < query->best[0]) { sqlite3_result_double(result, -1.0 * bound); return; }
    }
    int length = 0;
    Lengths *lengths = api->xUserData(fts);
    rc = row_length(api, fts, lengths, &length);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    double score = bm25(query, (double)length, k1, b);
    sqlite3_int64 rowid = api->xRowid(fts);
    /* A row kept, or tied with the k-th best (the statement's ORDER BY … LIMIT may keep it in
       place of the one kept here: copies of one file score alike), gets its docent_score. */
    if (query->top > 0 && (best_add(query, rowid, score) || score >= query->best[0])) keep_rescored(api, fts, query, lengths, rowid, length);
    sqlite3_result_double(result, -1.0 * score);
}

/* Whether (score, row) ranks below (otherScore, otherRow): a lower score, or the same and an
   older row (ORDER BY score DESC, rowid DESC). */
static int ranks_below(double score, sqlite3_int64 row, double otherScore, sqlite3_int64 otherRow) {
    return score < otherScore || (score == otherScore && row < otherRow);
}

/* Adds the row to the best so far (a min-heap) when it ranks above the lowest of them (or there
   is room); whether it was added. Ties are broken as the statement's ORDER BY breaks them, so
   the k kept are exactly those of ORDER BY score DESC, rowid DESC LIMIT k. */
static int top_add(Query *query, sqlite3_int64 row, double score) {
    int at;
    if (query->held < query->top) {
        at = query->held++;
        while (at > 0 && ranks_below(score, row, query->best[(at - 1) / 2], query->bestRow[(at - 1) / 2])) {
            query->best[at] = query->best[(at - 1) / 2];
            query->bestRow[at] = query->bestRow[(at - 1) / 2];
            at = (at - 1) / 2;
        }
    } else {
        if (!ranks_below(query->best[0], query->bestRow[0], score, row)) return 0;
        at = 0;
        for (;;) {
            int child = 2 * at + 1;
            if (child >= query->held) break;
            if (child + 1 < query->held && ranks_below(query->best[child + 1], query->bestRow[child + 1], query->best[child], query->bestRow[child]))
                child++;
            if (!ranks_below(query->best[child], query->bestRow[child], score, row)) break;
            query->best[at] = query->best[child];
            query->bestRow[at] = query->bestRow[child];
            at = child;
        }
    }
    query->best[at] = score;
    query->bestRow[at] = row;
    return 1;
}

/* One walk of docent_top over its phrase's rows. */
typedef struct {
    Query *query;
    Lengths *lengths;
    int filtered;                /* only the rows of `among` (ascending; none when it is empty) */
    const sqlite3_int64 *among;
    size_t amongCount;
    const sqlite3_int64 *except; /* never the rows of `except` (ascending) */
    size_t exceptCount;
    size_t amongAt, exceptAt;    /* where the last look ended in each (rows come ascending) */
} TopWalk;

/* Whether `rowid` is one of ids[0..<count] (ascending), looked for from `*at`, where the last
   look ended: FTS5 hands rows over in ascending order, so a walk over 120,000 rows gallops
   forward through a filter of 54,000 instead of searching all of it each time (a smaller rowid
   than the last starts over). */
static int sorted_contains_from(const sqlite3_int64 *ids, size_t count, size_t *at, sqlite3_int64 rowid) {
    size_t low = *at;
    if (low > count || (low > 0 && ids[low - 1] >= rowid)) low = 0;
    size_t step = 1, high = low;
    while (high < count && ids[high] < rowid) {
        low = high + 1;
        high = low + step < count ? low + step : count;
        step *= 2;
    }
    /* ids[low - 1] < rowid, and ids[high] >= rowid or high == count: the first not below it. */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (ids[middle] < rowid) low = middle + 1; else high = middle;
    }
    *at = low;
    return low < count && ids[low] == rowid;
}

/* Whether the walk's filters keep `rowid`: one of `among` when it filters, none of `except`. */
static int walk_keeps(TopWalk *walk, sqlite3_int64 rowid) {
    if (walk->filtered && !sorted_contains_from(walk->among, walk->amongCount, &walk->amongAt, rowid)) return 0;
    return walk->exceptCount == 0 || !sorted_contains_from(walk->except, walk->exceptCount, &walk->exceptAt, rowid);
}

static int top_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
    TopWalk *walk = context;
    Query *query = walk->query;
    sqlite3_int64 rowid = api->xRowid(fts);
    if (!walk_keeps(walk, rowid)) return SQLITE_OK;
    sqlite3_int64 shortest = 0;
    int rc = row_frequencies(api, fts, query, &shortest);
    if (rc != SQLITE_OK) return rc;
    /* Not even as short as its occurrences allow could the row rank above the k-th best (a row
       tied with it could: the newer row goes first). */
    if (query->held == query->top && bm25(query, least_length(api, fts, query, shortest), 1.2, 0.75) < query->best[0]) return SQLITE_OK;
    int length = 0;
    rc = row_length(api, fts, walk->lengths, &length);
    if (rc != SQLITE_OK) return rc;
    double score = bm25(query, (double)length, 1.2, 0.75);
    if (top_add(query, rowid, score)) keep_rescored(api, fts, query, walk->lengths, rowid, length);
    return SQLITE_OK;
}

/* A row of a ranked list (docent_skyline, docent_figures): its id, its weighted count of the
   query's one phrase, its length in tokens; 24 bytes of native values. */
typedef struct {
    sqlite3_int64 rowid;
    double frequency;
    sqlite3_int64 length;
} Figures;

/* docent_top over the rows of a ranked list in place of its phrase's every row: each scored
   from its figures as top_row scores it from FTS5's (the same sums, so the same scores). */
static void listed_rows(TopWalk *walk, const Figures *rows, size_t count) {
    Query *query = walk->query;
    for (size_t i = 0; i < count; i++) {
        Figures row;
        memcpy(&row, &rows[i], sizeof row);
        if (!walk_keeps(walk, row.rowid)) continue;
        query->frequency[0] = row.frequency;
        double score = bm25(query, (double)row.length, 1.2, 0.75);
        /* Kept: its docent_score, and a proximity of 0 (one phrase), as keep_rescored gives. */
        if (top_add(query, row.rowid, score)) rescored_put(walk->lengths, row.rowid, bm25(query, (double)row.length, SCORE_K1, SCORE_B), 0);
    }
}

static int compare_kept(const void *a, const void *b) {
    const double *x = a, *y = b;  /* (score, rowid as bits) pairs */
    sqlite3_int64 xr, yr;
    memcpy(&xr, &x[1], sizeof xr);
    memcpy(&yr, &y[1], sizeof yr);
    if (x[0] != y[0]) return x[0] < y[0] ? 1 : -1;
    return (xr < yr) - (xr > yr);
}

/* docent_top(fts, w0, …, w_last, k, among[, except[, list]]): for a query of one phrase (a word, a prefix, a
 * phrase, in any columns), the k rows docent_rank's ORDER BY score DESC, rowid DESC LIMIT k
 * keeps, found in one call at the statement's first row: FTS5 walks the phrase's rows
 * (xQueryPhrase) and each is scored, or pruned, in C, without a statement step, a function
 * call with its arguments and a sorter entry per row — at a million files a common word's
 * 298,000 rows cost 36 ms through the statement, over the 15 ms of walking them. `among`, a
 * blob of ascending 64-bit ids or NULL, keeps only those rows (docent_among's set; an empty
 * blob, none); `except`, the same, leaves those rows out (the files of words typed with a
 * minus, `python -perl`: the statement tested each match with NOT IN and ranked it, 79,580
 * rows at a million files). `list`, a blob of Figures (a word's ranked list, docent_skyline, with
 * its rows changed since), is scored in place of the phrase's every row. The rows
 * it keeps get their docent_score and docent_proximity remembered, as docent_rank's do.
 * Returns the rows as a blob of (rowid, score) pairs of native 64-bit integers and doubles,
 * best first (score as -docent_rank gives it); NULL when the query is of more than one phrase.
 */
static void top(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    int columns = api->xColumnCount(fts);
    if (api->xPhraseCount(fts) != 1 || argc < columns + 2 || argc > columns + 4) { sqlite3_result_null(result); return; }
    Query *query = NULL;
    int rc = query_data(api, fts, result, argc, argv, &query);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    if (query->top == 0) { sqlite3_result_null(result); return; }
    TopWalk walk = { .query = query, .lengths = api->xUserData(fts) };
    if (sqlite3_value_type(argv[columns + 1]) == SQLITE_BLOB) {
        /* An empty blob is an empty set (its pointer is NULL), not the absence of a filter. */
        walk.filtered = 1;
        walk.among = sqlite3_value_blob(argv[columns + 1]);
        walk.amongCount = (size_t)sqlite3_value_bytes(argv[columns + 1]) / sizeof(sqlite3_int64);
    }
    if (argc >= columns + 3 && sqlite3_value_type(argv[columns + 2]) == SQLITE_BLOB) {
        walk.except = sqlite3_value_blob(argv[columns + 2]);
        walk.exceptCount = (size_t)sqlite3_value_bytes(argv[columns + 2]) / sizeof(sqlite3_int64);
    }
    if (argc == columns + 4 && sqlite3_value_type(argv[columns + 3]) == SQLITE_BLOB)
        listed_rows(&walk, sqlite3_value_blob(argv[columns + 3]), (size_t)sqlite3_value_bytes(argv[columns + 3]) / sizeof(Figures));
    else
        rc = api->xQueryPhrase(fts, 0, &walk, top_row);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    double *kept = sqlite3_malloc64((size_t)(query->held > 0 ? query->held : 1) * 2 * sizeof(double));
    if (!kept) { sqlite3_result_error_nomem(result); return; }
    for (int i = 0; i < query->held; i++) {
        kept[2 * i] = query->best[i];
        memcpy(&kept[2 * i + 1], &query->bestRow[i], sizeof(sqlite3_int64));
    }
    qsort(kept, (size_t)query->held, 2 * sizeof(double), compare_kept);
    /* Out as (rowid, score): the row first. */
    for (int i = 0; i < query->held; i++) {
        double score = kept[2 * i];
        memcpy(&kept[2 * i], &kept[2 * i + 1], sizeof(double));
        kept[2 * i + 1] = score;
    }
    sqlite3_result_blob64(result, kept, (sqlite3_uint64)query->held * 2 * sizeof(double), sqlite3_free);
}

static void rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    rank_with(api, fts, result, argc, argv, 1.2, 0.75);
}

static void score(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    /* Never pruned: a k given is ignored. */
    rank_with(api, fts, result, argc > api->xColumnCount(fts) ? api->xColumnCount(fts) : argc, argv, SCORE_K1, SCORE_B);
}

/* docent_rescored(rowid): the row's docent_score, when the connection's last docent_rank kept
   it; docent_kept_proximity(rowid): its docent_proximity then (NULL when not known). */
static void rescored_value(sqlite3_context *context, sqlite3_value **argv, int which) {
    const Lengths *lengths = sqlite3_user_data(context);
    sqlite3_int64 rowid = sqlite3_value_int64(argv[0]);
    size_t at = lengths->rescoredCapacity > 0 && rowid >= 0 ? rescored_slot(lengths, rowid) : 0;
    double value = 0;
    int known = lengths->rescoredCapacity > 0 && rowid >= 0 && lengths->rescoredRows[at] != 0;
    if (known) value = lengths->rescoredScores[2 * at + which];
    if (!known || (which == 1 && value < 0)) sqlite3_result_null(context);
    else sqlite3_result_double(context, which == 0 ? -1.0 * value : value);
}

static void rescored(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    rescored_value(context, argv, 0);
}

static void kept_proximity(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    rescored_value(context, argv, 1);
}

static void proximity(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    (void)argc; (void)argv;
    double near = 0;
    int rc = row_proximity(api, fts, &near);
    if (rc != SQLITE_OK) sqlite3_result_error_code(result, rc);
    else sqlite3_result_double(result, near);
}

/* docent_rows(fts): the rows of the table (FTS5 keeps the count: no scan of `files`, which
   took 10 ms at a million files), for "did you mean"'s one file in a thousand. */
static void rows(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    (void)argc; (void)argv;
    sqlite3_int64 count = 0;
    int rc = api->xRowCount(fts, &count);
    if (rc != SQLITE_OK) sqlite3_result_error_code(result, rc);
    else sqlite3_result_int64(result, count);
}

/* docent_figures(fts, w0, …, w_last): the row at hand's Figures (its id, weighted count of the
   query's one phrase and length) as one blob: a row changed since its ranked list was made,
   scored with the list's rows. NULL for a query of more than one phrase. */
static void figures(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    if (api->xPhraseCount(fts) != 1 || argc != api->xColumnCount(fts)) { sqlite3_result_null(result); return; }
    Query *query = NULL;
    sqlite3_int64 shortest = 0;
    int length = 0;
    int rc = query_data(api, fts, result, argc, argv, &query);
    if (rc == SQLITE_OK) rc = row_frequencies(api, fts, query, &shortest);
    if (rc == SQLITE_OK) rc = row_length(api, fts, api->xUserData(fts), &length);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(result, rc); return; }
    Figures row = { api->xRowid(fts), query->frequency[0], length };
    sqlite3_result_blob(result, &row, sizeof row, SQLITE_TRANSIENT);
}

/* Every row of docent_skyline's phrase, with its figures. */
typedef struct {
    Query *query;
    Lengths *lengths;
    Figures *rows;
    size_t count, capacity;
} SkylineWalk;

static int skyline_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
    SkylineWalk *walk = context;
    sqlite3_int64 shortest = 0;
    int length = 0;
    int rc = row_frequencies(api, fts, walk->query, &shortest);
    if (rc == SQLITE_OK) rc = row_length(api, fts, walk->lengths, &length);
    if (rc != SQLITE_OK) return rc;
    if (walk->count == walk->capacity) {
        size_t capacity = walk->capacity ? walk->capacity * 2 : 4096;
        Figures *grown = sqlite3_realloc64(walk->rows, capacity * sizeof *grown);
        if (!grown) return SQLITE_NOMEM;
        walk->rows = grown;
        walk->capacity = capacity;
    }
    walk->rows[walk->count++] = (Figures){ api->xRowid(fts), walk->query->frequency[0], length };
    return SQLITE_OK;
}

/* Rows in an order where each comes after every row that dominates it: a higher count first,
   then a shorter row, then a newer one (the search's tie-break). */
static int by_dominance(const void *a, const void *b) {
    const Figures *x = a, *y = b;
    if (x->frequency != y->frequency) return x->frequency > y->frequency ? -1 : 1;
    if (x->length != y->length) return x->length < y->length ? -1 : 1;
    return (x->rowid < y->rowid) - (x->rowid > y->rowid);
}

static int by_value(const void *a, const void *b) {
    sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;
    return (x > y) - (x < y);
}

/* Adds `value` to heap[0..<*count], a max-heap of the `capacity` smallest values seen. */
static void smallest_add(sqlite3_int64 *heap, int *count, int capacity, sqlite3_int64 value) {
    int at;
    if (*count < capacity) {
        at = (*count)++;
        while (at > 0 && heap[(at - 1) / 2] < value) {
            heap[at] = heap[(at - 1) / 2];
            at = (at - 1) / 2;
        }
    } else {
        if (value >= heap[0]) return;
        at = 0;
        for (;;) {
            int child = 2 * at + 1;
            if (child >= capacity) break;
            if (child + 1 < capacity && heap[child + 1] > heap[child]) child++;
            if (heap[child] <= value) break;
            heap[at] = heap[child];
            at = child;
        }
    }
    heap[at] = value;
}

enum { PREFILTER_LEVELS = 4096 };

static int by_count_descending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Leaves out, in linear time, rows that `depth` rows surely dominate, before the exact
 * count sorts what is left: a row longer than the `depth` shortest rows of at least its count
 * is beaten by each of them (a higher or equal count, a shorter length), whatever the
 * tie-break. The counts are few (sums of a few column weights): for each, its rows' `depth`
 * shortest lengths are kept, then merged going down the counts. A row left out is no
 * member, and each member's dominators among the rows kept number as many as the skyline
 * needs (a non-member has `depth` dominators among the members), so the list is the same.
 * Returns how many rows are kept (moved to the front); all of them with more distinct
 * counts than PREFILTER_LEVELS, or when memory runs out. */
static size_t prefilter(Figures *rows, size_t n, int depth) {
    if (n <= (size_t)depth * 4) return n;
    enum { SLOTS = 2 * PREFILTER_LEVELS };
    double *keys = malloc(SLOTS * sizeof *keys);
    int *slotLevel = malloc(SLOTS * sizeof *slotLevel);
    int *level = malloc(n * sizeof *level);
    double *values = malloc(PREFILTER_LEVELS * 2 * sizeof *values);
    if (!keys || !slotLevel || !level || !values) { free(keys); free(slotLevel); free(level); free(values); return n; }
    for (int i = 0; i < SLOTS; i++) slotLevel[i] = -1;
    int levels = 0;
    for (size_t i = 0; i < n; i++) {
        sqlite3_uint64 bits;
        memcpy(&bits, &rows[i].frequency, sizeof bits);
        size_t at = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 40) & (SLOTS - 1);
        while (slotLevel[at] >= 0 && keys[at] != rows[i].frequency) at = (at + 1) & (SLOTS - 1);
        if (slotLevel[at] < 0) {
            if (levels == PREFILTER_LEVELS) { free(keys); free(slotLevel); free(level); free(values); return n; }
            keys[at] = rows[i].frequency;
            slotLevel[at] = levels;
            values[2 * levels] = rows[i].frequency;
            values[2 * levels + 1] = (double)levels;
            levels++;
        }
        level[i] = slotLevel[at];
    }
    free(keys);
    free(slotLevel);
    /* (count, level) pairs by count, highest first. */
    qsort(values, (size_t)levels, 2 * sizeof *values, by_count_descending);
    sqlite3_int64 *heaps = malloc((size_t)levels * (size_t)depth * sizeof *heaps);
    int *held = calloc((size_t)levels, sizeof *held);
    sqlite3_int64 *running = malloc((size_t)depth * sizeof *running);
    sqlite3_int64 *cut = malloc((size_t)levels * sizeof *cut);
    size_t kept = n;
    if (heaps && held && running && cut) {
        for (size_t i = 0; i < n; i++) smallest_add(heaps + (size_t)level[i] * depth, &held[level[i]], depth, rows[i].length);
        int runningCount = 0;
        for (int r = 0; r < levels; r++) {
            int l = (int)values[2 * r + 1];
            for (int j = 0; j < held[l]; j++) smallest_add(running, &runningCount, depth, heaps[(size_t)l * depth + j]);
            cut[l] = runningCount == depth ? running[0] : INT64_MAX;
        }
        kept = 0;
        for (size_t i = 0; i < n; i++) if (rows[i].length <= cut[level[i]]) rows[kept++] = rows[i];
    }
    free(heaps); free(held); free(running); free(cut); free(level); free(values);
    return kept;
}

/*
 * docent_skyline(fts, w0, …, w_last, depth): the ranked list of a query of one phrase — the
 * rows that fewer than `depth` rows dominate — as a blob: the phrase's count of rows (a native
 * 64-bit integer), then each listed row's Figures.
 *
 * Row x dominates row y when x's weighted count is at least y's, x is no longer, and x ranks
 * first when both are equal (the newer row). BM25 of one phrase rises with the count and
 * falls with the length whatever its parameters and the table's average length, so a row
 * dominated by `depth` rows is below each of them in every ranking docent_rank and
 * docent_score can make: the best k ≤ depth rows are always listed, as long as the table
 * stays as it was (FileIndex+RankedLists.swift keeps them exact as rows change). A row that
 * `depth` rows dominate is dominated by `depth` listed rows, so taking d listed rows away
 * leaves the list exact for the best depth − d.
 *
 * Rows surely dominated are left out first (prefilter); the rest in dominance order, each
 * one's dominators the rows before it no longer than it, counted with a Fenwick tree over the
 * lengths' ranks: O(n log n) in the rows kept.
 */
static void skyline(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *result, int argc, sqlite3_value **argv) {
    int columns = api->xColumnCount(fts);
    if (api->xPhraseCount(fts) != 1 || argc != columns + 1) { sqlite3_result_null(result); return; }
    sqlite3_int64 depth = sqlite3_value_int64(argv[columns]);
    if (depth <= 0 || depth > 100000) { sqlite3_result_null(result); return; }
    Query *query = NULL;
    int rc = query_data(api, fts, result, argc, argv, &query);
    SkylineWalk walk = { .query = query, .lengths = api->xUserData(fts) };
    if (rc == SQLITE_OK) rc = api->xQueryPhrase(fts, 0, &walk, skyline_row);
    size_t n = rc == SQLITE_OK ? prefilter(walk.rows, walk.count, (int)depth) : 0, m = 0, kept = 0;
    sqlite3_int64 *lengths = rc == SQLITE_OK ? sqlite3_malloc64((n + 1) * sizeof *lengths) : NULL;
    int *tree = lengths ? sqlite3_malloc64((n + 1) * sizeof *tree) : NULL;
    unsigned char *out = tree ? sqlite3_malloc64(sizeof(sqlite3_int64) + (n + 1) * sizeof(Figures)) : NULL;
    if (!out) {
        sqlite3_free(walk.rows); sqlite3_free(lengths); sqlite3_free(tree);
        sqlite3_result_error_code(result, rc == SQLITE_OK ? SQLITE_NOMEM : rc);
        return;
    }
    /* The distinct lengths, ascending: a row's rank among them is its place in the tree. */
    for (size_t i = 0; i < n; i++) lengths[i] = walk.rows[i].length;
    qsort(lengths, n, sizeof *lengths, by_value);
    for (size_t i = 0; i < n; i++) if (m == 0 || lengths[i] != lengths[m - 1]) lengths[m++] = lengths[i];
    memset(tree, 0, (m + 1) * sizeof *tree);
    qsort(walk.rows, n, sizeof *walk.rows, by_dominance);
    Figures *listed = (Figures *)(out + sizeof(sqlite3_int64));
    for (size_t i = 0; i < n; i++) {
        size_t low = 0, high = m;
        while (low < high) {
            size_t middle = low + (high - low) / 2;
            if (lengths[middle] < walk.rows[i].length) low = middle + 1; else high = middle;
        }
        size_t place = low + 1;  /* 1-based */
        sqlite3_int64 dominators = 0;
        for (size_t at = place; at > 0; at -= at & (~at + 1)) dominators += tree[at];
        if (dominators < depth) memcpy(&listed[kept++], &walk.rows[i], sizeof(Figures));
        for (size_t at = place; at <= m; at += at & (~at + 1)) tree[at]++;
    }
    sqlite3_int64 count = (sqlite3_int64)walk.count;
    memcpy(out, &count, sizeof count);
    sqlite3_free(walk.rows); sqlite3_free(lengths); sqlite3_free(tree);
    sqlite3_result_blob64(result, out, sizeof(sqlite3_int64) + kept * sizeof(Figures), sqlite3_free);
}

int docent_register_rank(sqlite3 *db, fts5_api *api) {
    Lengths *lengths = calloc(1, sizeof *lengths);
    if (!lengths) return SQLITE_NOMEM;
    int rc = api->xCreateFunction(api, "docent_rank", lengths, rank, lengths_free);
    if (rc != SQLITE_OK) { free(lengths); return rc; }  /* FTS5 calls the destructor only for a function it keeps */
    /* The others share docent_rank's lengths, which live as long as the connection. */
    rc = api->xCreateFunction(api, "docent_score", lengths, score, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "docent_top", lengths, top, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_create_function_v2(db, "docent_rescored", 1, SQLITE_UTF8, lengths, rescored, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(db, "docent_kept_proximity", 1, SQLITE_UTF8, lengths, kept_proximity, NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "docent_rows", NULL, rows, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "docent_figures", lengths, figures, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "docent_skyline", lengths, skyline, NULL);
    return rc == SQLITE_OK ? api->xCreateFunction(api, "docent_proximity", NULL, proximity, NULL) : rc;
}
