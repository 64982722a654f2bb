#define _GNU_SOURCE
/*
 * OCR for images and for PDF pages without a text layer: Tesseract (libtesseract's C API)
 * over pictures Leptonica reads or MuPDF draws. Runs in the helper process only, under its
 * memory budget; the time budget is Tesseract's own deadline (a monitor) and a check between
 * pages, so a long scan stops with what it has rather than being killed with nothing.
 *
 * One Tesseract engine per language set is kept for the process's life (loading the
 * language data costs ~0.2 s); it runs on one thread (OMP_THREAD_LIMIT=1), as the helpers
 * already use one core each. Nothing is printed: Tesseract's and Leptonica's messages go to
 * /dev/null.
 */
#include <leptonica/allheaders.h>
#include <mupdf/fitz.h>
#include <stdlib.h>
#include <string.h>
#include <tesseract/capi.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include "docent_ocr.h"

static TessBaseAPI *engine;
static char *engine_languages;

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The engine for `languages`, made (or made again for other languages) as needed. */
static TessBaseAPI *engine_for(const char *languages, char **error) {
    if (engine && engine_languages && strcmp(engine_languages, languages) == 0) return engine;
    if (engine) { TessBaseAPIDelete(engine); engine = NULL; free(engine_languages); engine_languages = NULL; }
    setenv("OMP_THREAD_LIMIT", "1", 0);
    setMsgSeverity(L_SEVERITY_NONE);
    TessBaseAPI *made = TessBaseAPICreate();
    if (!made) { *error = strdup("Tesseract could not start (out of memory)"); return NULL; }
    TessBaseAPISetVariable(made, "debug_file", "/dev/null");
    if (TessBaseAPIInit3(made, NULL, languages) != 0) {
        TessBaseAPIDelete(made);
        size_t size = strlen(languages) + 160;
        *error = malloc(size);
        if (*error) snprintf(*error, size, "no Tesseract language data for \"%s\" (Debian packages tesseract-ocr-LANG)", languages);
        return NULL;
    }
    TessBaseAPISetVariable(made, "debug_file", "/dev/null");
    engine = made;
    engine_languages = strdup(languages);
    return engine;
}

/* Appends `text` to `out`'s text, a form feed between pages. */
static void append(DocentOCRResult *out, const char *text) {
    size_t old = out->text ? strlen(out->text) : 0, add = strlen(text);
    char *grown = realloc(out->text, old + add + 2);
    if (!grown) return;
    if (old) grown[old++] = '\f';
    memcpy(grown + old, text, add + 1);
    out->text = grown;
}

/* Recognizes the image set on `api`, until `deadline` (monotonic ms). */
static int recognize(TessBaseAPI *api, long long deadline, DocentOCRResult *out) {
    long long left = deadline - now_ms();
    if (left <= 0) { out->stopped = 1; return 0; }
    ETEXT_DESC *monitor = TessMonitorCreate();
    if (monitor) TessMonitorSetDeadlineMSecs(monitor, (int)(left > 0x7FFFFFFF ? 0x7FFFFFFF : left));
    int failed = TessBaseAPIRecognize(api, monitor) != 0;
    if (monitor) TessMonitorDelete(monitor);
    if (failed) { out->stopped = now_ms() >= deadline; TessBaseAPIClear(api); return 0; }
    char *text = TessBaseAPIGetUTF8Text(api);
    if (text) { append(out, text); TessDeleteText(text); }
    out->pages++;
    TessBaseAPIClear(api);
    return 1;
}

void docent_ocr_image(const void *bytes, size_t length, const char *languages, int deadline_ms, DocentOCRResult *out) {
    memset(out, 0, sizeof *out);
    long long deadline = now_ms() + deadline_ms;
    TessBaseAPI *api = engine_for(languages, &out->error);
    if (!api) return;
    PIX *pix = pixReadMem(bytes, length);
    if (!pix) { out->error = strdup("Leptonica could not read the image"); return; }
    TessBaseAPISetImage2(api, pix);
    recognize(api, deadline, out);
    pixDestroy(&pix);
}

static void quiet(void *user, const char *message) { (void)user; (void)message; }

void docent_ocr_pdf(const void *bytes, size_t length, const char *languages, int dpi, int min_characters,
                    int deadline_ms, DocentOCRResult *out) {
    memset(out, 0, sizeof *out);
    long long deadline = now_ms() + deadline_ms;
    TessBaseAPI *api = engine_for(languages, &out->error);
    if (!api) return;
    fz_context *ctx = fz_new_context(NULL, NULL, 32 << 20);
    if (!ctx) { out->error = strdup("MuPDF could not start (out of memory)"); return; }
    fz_set_warning_callback(ctx, quiet, NULL);
    fz_set_error_callback(ctx, quiet, NULL);
    fz_document *doc = NULL;
    fz_stream *stream = NULL;
    int pages = 0;
    fz_var(doc);
    fz_var(stream);
    fz_try(ctx) {
        fz_register_document_handlers(ctx);
        stream = fz_open_memory(ctx, bytes, length);
        doc = fz_open_document_with_stream(ctx, "application/pdf", stream);
        pages = fz_needs_password(ctx, doc) && !fz_authenticate_password(ctx, doc, "") ? 0 : fz_count_pages(ctx, doc);
    }
    fz_catch(ctx) {
        out->error = strdup(fz_caught_message(ctx));
        pages = 0;
    }
    fz_stext_options options = { 0 };
    for (int index = 0; index < pages; index++) {
        if (now_ms() >= deadline) { out->stopped = 1; break; }
        fz_page *page = NULL;
        fz_stext_page *text = NULL;
        fz_pixmap *pixmap = NULL;
        int characters = 0;
        fz_var(page);
        fz_var(text);
        fz_var(pixmap);
        fz_try(ctx) {
            page = fz_load_page(ctx, doc, index);
            text = fz_new_stext_page_from_page(ctx, page, &options);
            for (fz_stext_block *block = text->first_block; block && characters < min_characters; block = block->next) {
                if (block->type != FZ_STEXT_BLOCK_TEXT) continue;
                for (fz_stext_line *line = block->u.t.first_line; line; line = line->next)
                    for (fz_stext_char *c = line->first_char; c; c = c->next)
                        if (c->c > ' ') characters++;
            }
            if (characters < min_characters) {
                float scale = (float)dpi / 72.0f;
                pixmap = fz_new_pixmap_from_page(ctx, page, fz_scale(scale, scale), fz_device_gray(ctx), 0);
            }
        }
        fz_catch(ctx) {
            pixmap = NULL;  /* a page that cannot be drawn is left out */
        }
        if (pixmap) {
            TessBaseAPISetImage(api, fz_pixmap_samples(ctx, pixmap), fz_pixmap_width(ctx, pixmap),
                                fz_pixmap_height(ctx, pixmap), 1, fz_pixmap_stride(ctx, pixmap));
            TessBaseAPISetSourceResolution(api, dpi);
            recognize(api, deadline, out);
        }
        fz_drop_pixmap(ctx, pixmap);
        fz_drop_stext_page(ctx, text);
        fz_drop_page(ctx, page);
        if (out->stopped) break;
    }
    fz_drop_document(ctx, doc);
    fz_drop_stream(ctx, stream);
    fz_drop_context(ctx);
}

void docent_ocr_result_free(DocentOCRResult *result) {
    free(result->text);
    free(result->error);
    result->text = NULL;
    result->error = NULL;
}

void docent_sha256(const void *bytes, size_t length, unsigned char digest[32]) {
    fz_sha256 state;
    fz_sha256_init(&state);
    fz_sha256_update(&state, bytes, length);
    fz_sha256_final(&state, digest);
}

int docent_sha256_fd(int fd, unsigned char digest[32]) {
    static const size_t piece = 1 << 20;
    unsigned char *buffer = malloc(piece);
    if (!buffer) return -1;
    fz_sha256 state;
    fz_sha256_init(&state);
    int result = 0;
    for (;;) {
        ssize_t n = read(fd, buffer, piece);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { result = -1; break; }
        if (n == 0) break;
        fz_sha256_update(&state, buffer, (size_t)n);
    }
    fz_sha256_final(&state, digest);
    free(buffer);
    return result;
}

/* The length of a `/ID [<hex> <hex>]` array at `p` (at most `n` bytes there), or 0. */
static size_t file_identifier(const unsigned char *p, size_t n) {
    size_t i = 3;  /* after "/ID" */
    if (n < 3 || memcmp(p, "/ID", 3) != 0) return 0;
    while (i < n && (p[i] == ' ' || p[i] == '\r' || p[i] == '\n' || p[i] == '\t')) i++;
    if (i >= n || p[i] != '[') return 0;
    i++;
    for (int string = 0; string < 2; string++) {
        while (i < n && (p[i] == ' ' || p[i] == '\r' || p[i] == '\n' || p[i] == '\t')) i++;
        if (i >= n || p[i] != '<') return 0;
        size_t digits = 0;
        for (i++; i < n && digits <= 128 && ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || (p[i] >= 'A' && p[i] <= 'F')); i++) digits++;
        if (i >= n || p[i] != '>' || digits == 0 || digits > 128) return 0;
        i++;
    }
    while (i < n && (p[i] == ' ' || p[i] == '\r' || p[i] == '\n' || p[i] == '\t')) i++;
    return i < n && p[i] == ']' ? i + 1 : 0;
}

int docent_sha256_pdf_fd(int fd, size_t limit, unsigned char digest[32]) {
    size_t capacity = 1 << 20, length = 0;
    unsigned char *bytes = malloc(capacity);
    if (!bytes) return -1;
    for (;;) {
        if (length == capacity) {
            if (capacity >= limit) { free(bytes); return -1; }
            capacity = capacity * 2 > limit ? limit : capacity * 2;
            unsigned char *grown = realloc(bytes, capacity);
            if (!grown) { free(bytes); return -1; }
            bytes = grown;
        }
        ssize_t n = read(fd, bytes + length, capacity - length);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { free(bytes); return -1; }
        if (n == 0) break;
        length += (size_t)n;
    }
    fz_sha256 state;
    fz_sha256_init(&state);
    size_t from = 0, at = 0;
    while (at + 3 <= length) {
        const unsigned char *found = memmem(bytes + at, length - at, "/ID", 3);
        if (!found) break;
        size_t position = (size_t)(found - bytes);
        size_t skip = file_identifier(found, length - position);
        if (skip) {
            fz_sha256_update(&state, bytes + from, position - from);
            from = position + skip;
            at = from;
        } else {
            at = position + 3;
        }
    }
    fz_sha256_update(&state, bytes + from, length - from);
    fz_sha256_final(&state, digest);
    free(bytes);
    return 0;
}

const char *docent_ocr_version(void) { return TessVersion(); }
