#include "docent_picture.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <poppler.h>
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scales an image down to fit `size` while the loader learns its dimensions, so a large
   JPEG is decoded at a fraction of its size and nothing is ever enlarged. */
static void fit(GdkPixbufLoader *loader, int width, int height, gpointer data) {
    int size = GPOINTER_TO_INT(data);
    if (width <= 0 || height <= 0) return;
    if (width <= size && height <= size) return;
    double scale = (double)size / (width > height ? width : height);
    int w = (int)(width * scale + 0.5), h = (int)(height * scale + 0.5);
    gdk_pixbuf_loader_set_size(loader, w > 0 ? w : 1, h > 0 ? h : 1);
}

static GdkPixbuf *from_image(const unsigned char *data, size_t length, int size, char **error) {
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
    g_signal_connect(loader, "size-prepared", G_CALLBACK(fit), GINT_TO_POINTER(size));
    GError *failure = NULL;
    gboolean written = gdk_pixbuf_loader_write(loader, data, length, &failure);
    gboolean closed = gdk_pixbuf_loader_close(loader, written ? &failure : NULL);
    GdkPixbuf *pixbuf = (written && closed) ? gdk_pixbuf_loader_get_pixbuf(loader) : NULL;
    if (pixbuf) {
        /* The camera's orientation (EXIF), as viewers show it. */
        pixbuf = gdk_pixbuf_apply_embedded_orientation(pixbuf);
    } else {
        *error = g_strdup(failure ? failure->message : "the image could not be decoded");
    }
    if (failure) g_error_free(failure);
    g_object_unref(loader);
    return pixbuf;
}

static GdkPixbuf *from_pdf(const unsigned char *data, size_t length, int number, int size, char **error) {
    GBytes *bytes = g_bytes_new_static(data, length);
    GError *failure = NULL;
    PopplerDocument *document = poppler_document_new_from_bytes(bytes, NULL, &failure);
    GdkPixbuf *pixbuf = NULL;
    if (!document) {
        *error = g_strdup(failure ? failure->message : "the PDF could not be opened");
        goto done;
    }
    int pages = poppler_document_get_n_pages(document);
    if (pages < 1) {
        *error = g_strdup("the PDF has no pages");
        goto done;
    }
    if (number < 0 || number >= pages) {
        *error = g_strdup_printf("the PDF has no page %d (it has %d)", number + 1, pages);
        goto done;
    }
    PopplerPage *page = poppler_document_get_page(document, number);
    if (!page) {
        *error = g_strdup_printf("page %d of the PDF could not be read", number + 1);
        goto done;
    }
    double width = 0, height = 0;
    poppler_page_get_size(page, &width, &height);
    if (!(width > 0 && height > 0) || width > 1e5 || height > 1e5) width = 612, height = 792;
    double scale = (double)size / (width > height ? width : height);
    int w = (int)(width * scale + 0.5), h = (int)(height * scale + 0.5);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(surface);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_scale(cr, scale, scale);
    poppler_page_render(page, cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    if (cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS) {
        /* Cairo's ARGB32 is native-endian premultiplied; the page is opaque (painted white
           first), so each pixel is copied as it is. */
        pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, w, h);
        if (pixbuf) {
            const unsigned char *source = cairo_image_surface_get_data(surface);
            int stride = cairo_image_surface_get_stride(surface);
            unsigned char *target = gdk_pixbuf_get_pixels(pixbuf);
            int rowstride = gdk_pixbuf_get_rowstride(pixbuf);
            for (int y = 0; y < h; y++) {
                const uint32_t *in = (const uint32_t *)(source + (size_t)y * stride);
                unsigned char *out = target + (size_t)y * rowstride;
                for (int x = 0; x < w; x++) {
                    uint32_t p = in[x];
                    out[3 * x] = (p >> 16) & 0xFF;
                    out[3 * x + 1] = (p >> 8) & 0xFF;
                    out[3 * x + 2] = p & 0xFF;
                }
            }
        } else {
            *error = g_strdup("out of memory");
        }
    } else {
        *error = g_strdup(cairo_status_to_string(cairo_surface_status(surface)));
    }
    cairo_surface_destroy(surface);
    g_object_unref(page);
done:
    if (failure) g_error_free(failure);
    if (document) g_object_unref(document);
    g_bytes_unref(bytes);
    return pixbuf;
}

int docent_picture_png(const unsigned char *data, size_t length, docent_picture_source source, int page, int size,
                       const docent_picture_keys *keys, unsigned char **png, size_t *png_length, char **error) {
    *png = NULL;
    *png_length = 0;
    *error = NULL;
    if (size < 1) size = 1;
    char *message = NULL;
    GdkPixbuf *pixbuf = source == DOCENT_PICTURE_PDF ? from_pdf(data, length, page, size, &message)
                                                     : from_image(data, length, size, &message);
    if (!pixbuf) {
        *error = strdup(message ? message : "no picture");
        g_free(message);
        return -1;
    }
    /* The standard's keys. */
    char *names[8], *values[8];
    int n = 0;
    char mtime[32], filesize[32];
    if (keys && keys->uri) { names[n] = "tEXt::Thumb::URI"; values[n++] = (char *)keys->uri; }
    if (keys && keys->mtime >= 0) {
        snprintf(mtime, sizeof mtime, "%lld", keys->mtime);
        names[n] = "tEXt::Thumb::MTime"; values[n++] = mtime;
    }
    if (keys && keys->size >= 0) {
        snprintf(filesize, sizeof filesize, "%lld", keys->size);
        names[n] = "tEXt::Thumb::Size"; values[n++] = filesize;
    }
    if (keys && keys->mime_type) { names[n] = "tEXt::Thumb::Mimetype"; values[n++] = (char *)keys->mime_type; }
    names[n] = "tEXt::Software"; values[n++] = "Docent";
    names[n] = NULL; values[n] = NULL;
    gchar *buffer = NULL;
    gsize buffer_length = 0;
    GError *failure = NULL;
    gboolean saved = gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &buffer_length, "png", names, values, &failure);
    g_object_unref(pixbuf);
    if (!saved) {
        *error = strdup(failure ? failure->message : "the PNG could not be written");
        if (failure) g_error_free(failure);
        return -1;
    }
    *png = malloc(buffer_length);
    if (!*png) {
        g_free(buffer);
        *error = strdup("out of memory");
        return -1;
    }
    memcpy(*png, buffer, buffer_length);
    *png_length = buffer_length;
    g_free(buffer);
    return 0;
}

char *docent_file_uri(const char *path) {
    gchar *uri = g_filename_to_uri(path, NULL, NULL);
    if (!uri) return NULL;
    char *copy = strdup(uri);
    g_free(uri);
    return copy;
}

char *docent_md5_hex(const unsigned char *data, size_t length) {
    gchar *hex = g_compute_checksum_for_data(G_CHECKSUM_MD5, data, length);
    char *copy = strdup(hex);
    g_free(hex);
    return copy;
}

void docent_picture_free(void *pointer) { free(pointer); }
