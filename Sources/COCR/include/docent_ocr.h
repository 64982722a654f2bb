#ifndef DOCENT_OCR_H
#define DOCENT_OCR_H
#include <stddef.h>

/* What OCR read (each string malloc'd, or NULL). */
typedef struct {
    char *text;        /* the recognized text, pages separated by a form feed */
    int pages;         /* pages (or images) recognized */
    int stopped;       /* the deadline came before every page was read */
    char *error;       /* why nothing could be read (an unreadable image, no language data) */
} DocentOCRResult;

/* Recognizes the text of an image in `bytes` (PNG, JPEG, TIFF, GIF, WebP, BMP, PNM: what
   Leptonica reads) with Tesseract in `languages` ("eng", "eng+deu"), giving up at
   `deadline_ms` from now. */
void docent_ocr_image(const void *bytes, size_t length, const char *languages, int deadline_ms, DocentOCRResult *out);

/* Recognizes the pages of the PDF in `bytes` whose own text has fewer than `min_characters`
   characters (scanned pages), each drawn by MuPDF at `dpi` in grey, until `deadline_ms`. */
void docent_ocr_pdf(const void *bytes, size_t length, const char *languages, int dpi, int min_characters,
                    int deadline_ms, DocentOCRResult *out);

/* Frees the strings of `result`. */
void docent_ocr_result_free(DocentOCRResult *result);

/* The SHA-256 of `bytes` (MuPDF's), for the OCR cache's keys. */
void docent_sha256(const void *bytes, size_t length, unsigned char digest[32]);

/* The SHA-256 of what is read from `fd` to its end (a file of any size, read in 1 MiB
   pieces); 0, or -1 when a read failed. */
int docent_sha256_fd(int fd, unsigned char digest[32]);

/* The SHA-256 of the PDF read from `fd` (at most `limit` bytes; -1 past it or when a read
   fails), leaving out the file identifiers (`/ID [<hex> <hex>]`): two builds of the same
   document differ there alone. Only that exact shape is left out, so bytes that merely
   contain "/ID" are hashed like the rest. */
int docent_sha256_pdf_fd(int fd, size_t limit, unsigned char digest[32]);

/* Tesseract's version. */
const char *docent_ocr_version(void);

#endif
