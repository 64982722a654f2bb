#ifndef DOCENT_PICTURE_H
#define DOCENT_PICTURE_H
#include <stddef.h>

/// What a picture is made from.
typedef enum {
    /// An image in any format gdk-pixbuf has a loader for (PNG, JPEG, GIF, WebP, SVG, ...).
    DOCENT_PICTURE_IMAGE = 0,
    /// A PDF: one of its pages, rendered by poppler on a white page.
    DOCENT_PICTURE_PDF = 1,
} docent_picture_source;

/// The freedesktop Thumbnail Managing Standard's keys written into the PNG's tEXt chunks
/// (NULL or negative: left out).
typedef struct {
    const char *uri;        /* Thumb::URI */
    long long mtime;        /* Thumb::MTime, the file's modification time in seconds */
    long long size;         /* Thumb::Size, the file's size in bytes */
    const char *mime_type;  /* Thumb::Mimetype */
} docent_picture_keys;

/// Makes a PNG of `data` (`length` bytes) scaled to fit `size` x `size` pixels (never
/// enlarged; a PDF's page `page`, counted from 0, drawn at that size), with `keys` in it. Returns 0 and the PNG in `*png` (free with
/// docent_picture_free), or -1 and a message in `*error` (free with docent_picture_free).
int docent_picture_png(const unsigned char *data, size_t length, docent_picture_source source, int page, int size,
                       const docent_picture_keys *keys, unsigned char **png, size_t *png_length, char **error);

/// The file: URI of an absolute path, escaped as GLib escapes it (and so as file managers
/// do, which matters: the thumbnail's name is this URI's MD5).
char *docent_file_uri(const char *path);

/// The MD5 of `length` bytes at `data` as 32 lowercase hex digits.
char *docent_md5_hex(const unsigned char *data, size_t length);

void docent_picture_free(void *pointer);

#endif
