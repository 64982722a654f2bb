/*
 * A PDF's text and document information through MuPDF, for PDFDocument.swift. MuPDF reports
 * errors by longjmp (fz_try/fz_catch), which Swift cannot cross: every call into it is made
 * here, inside its own fz_try, and only plain values go back.
 */
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <stdlib.h>
#include <string.h>
#include "docent_mupdf.h"

static void quiet(void *user, const char *message) { (void)user; (void)message; }

static char *metadata(fz_context *ctx, fz_document *doc, const char *key) {
    char buffer[4096];
    int length = -1;
    fz_try(ctx) { length = fz_lookup_metadata(ctx, doc, key, buffer, sizeof buffer); }
    fz_catch(ctx) { length = -1; }
    if (length <= 1 || buffer[0] == 0) return NULL;  /* the length counts the terminator */
    return strdup(buffer);
}

void docent_pdf_read(const void *bytes, size_t length, size_t store_bytes, DocentPDFInfo *info,
                     DocentPDFPageHandler page, void *context) {
    memset(info, 0, sizeof *info);
    info->pages = -1;
    fz_context *ctx = fz_new_context(NULL, NULL, store_bytes);
    if (!ctx) { info->error = strdup("MuPDF could not start (out of memory)"); return; }
    fz_set_warning_callback(ctx, quiet, NULL);
    fz_set_error_callback(ctx, quiet, NULL);
    fz_document *doc = NULL;
    fz_stream *stream = NULL;
    fz_var(doc);
    fz_var(stream);
    fz_try(ctx) {
        fz_register_document_handlers(ctx);
        stream = fz_open_memory(ctx, bytes, length);
        doc = fz_open_document_with_stream(ctx, "application/pdf", stream);
        if (fz_needs_password(ctx, doc) && !fz_authenticate_password(ctx, doc, "")) {
            info->encrypted = 1;
        } else {
            info->pages = fz_count_pages(ctx, doc);
        }
    }
    fz_catch(ctx) {
        info->error = strdup(fz_caught_message(ctx));
        info->pages = -1;
    }
    if (info->pages >= 0) {
        info->title = metadata(ctx, doc, FZ_META_INFO_TITLE);
        info->author = metadata(ctx, doc, FZ_META_INFO_AUTHOR);
        info->subject = metadata(ctx, doc, FZ_META_INFO_SUBJECT);
        info->keywords = metadata(ctx, doc, FZ_META_INFO_KEYWORDS);
        info->creator = metadata(ctx, doc, FZ_META_INFO_CREATOR);
        info->producer = metadata(ctx, doc, FZ_META_INFO_PRODUCER);
        info->created = metadata(ctx, doc, FZ_META_INFO_CREATIONDATE);
        info->modified = metadata(ctx, doc, FZ_META_INFO_MODIFICATIONDATE);
        fz_stext_options options = { .flags = FZ_STEXT_DEHYPHENATE | FZ_STEXT_MEDIABOX_CLIP };
        for (int index = 0; index < info->pages; index++) {
            fz_page *loaded = NULL;
            fz_stext_page *text = NULL;
            fz_buffer *buffer = NULL;
            unsigned char *data = NULL;
            size_t size = 0;
            int damaged = 0;
            fz_var(loaded);
            fz_var(text);
            fz_var(buffer);
            fz_try(ctx) {
                loaded = fz_load_page(ctx, doc, index);
                text = fz_new_stext_page_from_page(ctx, loaded, &options);
                buffer = fz_new_buffer_from_stext_page(ctx, text);
                size = fz_buffer_storage(ctx, buffer, &data);
            }
            fz_catch(ctx) {
                damaged = 1;
                size = 0;
            }
            int stop = page(context, index, damaged || !data ? "" : (const char *)data, damaged ? 0 : size, damaged);
            fz_drop_buffer(ctx, buffer);
            fz_drop_stext_page(ctx, text);
            fz_drop_page(ctx, loaded);
            if (stop) break;
        }
    }
    if (doc) {
        pdf_document *pdf = pdf_specifics(ctx, doc);
        info->repaired = pdf && pdf_was_repaired(ctx, pdf);
    }
    fz_drop_document(ctx, doc);
    fz_drop_stream(ctx, stream);
    fz_drop_context(ctx);
}

void docent_pdf_info_free(DocentPDFInfo *info) {
    char **strings[] = { &info->title, &info->author, &info->subject, &info->keywords, &info->creator,
                         &info->producer, &info->created, &info->modified, &info->error };
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) { free(*strings[i]); *strings[i] = NULL; }
}
