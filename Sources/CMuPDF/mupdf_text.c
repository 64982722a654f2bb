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

/* The object numbers of a page's annotations (its /Annots entries that are references), or
   NULL; `count` set. Read before the page is dropped. */
static int *annotation_numbers(fz_context *ctx, fz_page *page, int *count) {
    *count = 0;
    pdf_page *loaded = pdf_page_from_fz_page(ctx, page);
    if (!loaded) return NULL;
    int *numbers = NULL;
    fz_var(numbers);
    fz_try(ctx) {
        pdf_obj *annots = pdf_dict_get(ctx, loaded->obj, PDF_NAME(Annots));
        int length = pdf_array_len(ctx, annots);
        if (length > 0 && (numbers = malloc(sizeof *numbers * (size_t)length))) {
            for (int i = 0; i < length; i++) {
                pdf_obj *item = pdf_array_get(ctx, annots, i);
                if (pdf_is_indirect(ctx, item)) numbers[(*count)++] = pdf_to_num(ctx, item);
            }
        }
    }
    fz_catch(ctx) { *count = 0; }
    return numbers;
}

/* Lets go of the parsed objects of a page's annotations once the page is dropped. MuPDF keeps
   every object it parsed until the document is closed; a manual with hyperlinks holds one
   annotation per link (R's 2,415-page reference: 24,611, about 17 MB of objects), and each is
   read for its own page only. Only objects nothing else holds are let go (as pdf_clear_xref
   does), so one asked for again is parsed again, never left dangling. */
static void release_annotations(fz_context *ctx, pdf_document *pdf, const int *numbers, int count) {
    for (int i = 0; i < count; i++) {
        fz_try(ctx) {
            if (numbers[i] > 0 && numbers[i] < pdf_xref_len(ctx, pdf)) {
                pdf_xref_entry *entry = pdf_get_xref_entry(ctx, pdf, numbers[i]);
                if (entry && entry->obj && !entry->stm_buf && pdf_obj_refs(ctx, entry->obj) == 1) {
                    pdf_drop_obj(ctx, entry->obj);
                    entry->obj = NULL;
                }
            }
        }
        fz_catch(ctx) { /* left cached: only memory */ }
    }
}

/* Text needs no link targets, but MuPDF resolves every link's named destination as it loads
   a page: one look-up in the catalog's name tree per link, each parsing tree nodes and
   destination objects that then stay cached (R's reference manual: 24,611 links). With the
   tree out of sight, a link loads without a target. Only the document in memory changes; it
   is never saved. Returns whether there were named destinations to hide. */
static int forget_named_destinations(fz_context *ctx, pdf_document *pdf) {
    int hidden = 0;
    fz_var(hidden);
    fz_try(ctx) {
        pdf_obj *root = pdf_dict_get(ctx, pdf_trailer(ctx, pdf), PDF_NAME(Root));
        pdf_obj *names = pdf_dict_get(ctx, root, PDF_NAME(Names));
        if (pdf_dict_get(ctx, names, PDF_NAME(Dests))) { pdf_dict_del(ctx, names, PDF_NAME(Dests)); hidden = 1; }
        if (pdf_dict_get(ctx, root, PDF_NAME(Dests))) { pdf_dict_del(ctx, root, PDF_NAME(Dests)); hidden = 1; }
    }
    fz_catch(ctx) { /* links then resolve as usual: only time and memory */ }
    return hidden;
}

/* Lets go of the named destinations (`<< /D [page /XYZ …] >>`) that MuPDF parsed only because
   they share an object stream with a page's annotations: with the name tree hidden nothing
   asks for them again (and one asked for would be parsed again). */
static void release_destinations(fz_context *ctx, pdf_document *pdf) {
    fz_try(ctx) {
        int length = pdf_xref_len(ctx, pdf);
        for (int number = 1; number < length; number++) {
            pdf_xref_entry *entry = pdf_get_xref_entry(ctx, pdf, number);
            if (!entry || !entry->obj || entry->stm_buf || !pdf_is_dict(ctx, entry->obj)) continue;
            if (pdf_dict_len(ctx, entry->obj) != 1 || !pdf_dict_get(ctx, entry->obj, PDF_NAME(D))) continue;
            if (pdf_obj_refs(ctx, entry->obj) != 1) continue;
            pdf_drop_obj(ctx, entry->obj);
            entry->obj = NULL;
        }
    }
    fz_catch(ctx) { /* left cached: only memory */ }
}

/* A page's text with its annotations' (a form field's value, a stamp, a FreeText note), as
   pdftotext gives it: fz_new_stext_page_from_page runs the page's contents only. */
static fz_stext_page *page_text(fz_context *ctx, fz_page *page, const fz_stext_options *options) {
    fz_stext_page *text = fz_new_stext_page(ctx, fz_bound_page(ctx, page));
    fz_device *device = NULL;
    fz_var(device);
    fz_try(ctx) {
        device = fz_new_stext_device(ctx, text, options);
        fz_run_page(ctx, page, device, fz_identity, NULL);
        fz_close_device(ctx, device);
    }
    fz_always(ctx) { fz_drop_device(ctx, device); }
    fz_catch(ctx) {
        fz_drop_stext_page(ctx, text);
        fz_rethrow(ctx);
    }
    return text;
}

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
        pdf_document *pdf = pdf_specifics(ctx, doc);
        /* Destinations are swept only from a document that had named ones. */
        int destinations = pdf ? forget_named_destinations(ctx, pdf) : 0;
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
                text = page_text(ctx, loaded, &options);
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
            int count = 0;
            int *annotations = pdf && loaded ? annotation_numbers(ctx, loaded, &count) : NULL;
            fz_drop_page(ctx, loaded);
            if (annotations) release_annotations(ctx, pdf, annotations, count);
            free(annotations);
            if (destinations && index % 64 == 63) release_destinations(ctx, pdf);
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
