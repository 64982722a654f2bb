#ifndef DOCENT_MUPDF_H
#define DOCENT_MUPDF_H
#include <stddef.h>

/* A PDF's document information as MuPDF reads it (each string malloc'd, or NULL). */
typedef struct {
    int pages;          /* -1 when the document could not be opened */
    int encrypted;      /* a password is needed (then nothing else is known) */
    int repaired;       /* its cross-reference table was broken and rebuilt: it is damaged */
    char *title, *author, *subject, *keywords, *creator, *producer;
    char *created, *modified;  /* as the PDF writes them: "D:YYYYMMDDHHmmSS+HH'mm'" */
    char *error;        /* why it could not be opened */
} DocentPDFInfo;

/* Called with each page's text in reading order (UTF-8, lines joined by "\n", hyphens at line
   ends joined); `damaged` when the page could not be read (then `text` is empty). Returns
   nonzero to stop reading. */
typedef int (*DocentPDFPageHandler)(void *context, int index, const char *text, size_t length, int damaged);

/* Reads the PDF in `bytes` with MuPDF, its caches bounded by `store_bytes`: `info` filled,
   then `page` called for each page. Nothing is printed; errors and warnings are kept. */
void docent_pdf_read(const void *bytes, size_t length, size_t store_bytes, DocentPDFInfo *info,
                     DocentPDFPageHandler page, void *context);

/* Frees the strings of `info`. */
void docent_pdf_info_free(DocentPDFInfo *info);

#endif
