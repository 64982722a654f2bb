#ifndef DOCENT_MEDIA_H
#define DOCENT_MEDIA_H
#ifdef __cplusplus
extern "C" {
#endif

/// What TagLib read from an audio or video file. Strings are UTF-8, allocated with
/// malloc (NULL when absent); free them all with docent_media_info_free.
typedef struct docent_media_info {
    char *title, *artist, *album, *genre, *comment;
    unsigned int year, track;
    /// Every tag TagLib knows, as "KEY\tvalue\n" lines (album artist, composer, lyrics...).
    char *properties;
    /// Audio properties; -1 when unknown.
    int length_ms, bitrate_kbps, sample_rate, channels;
    /// The container TagLib recognised ("MPEG", "FLAC", "MP4", ...).
    const char *format;
} docent_media_info;

/// Reads the tags and audio properties of the open file `fd` (`size` bytes; `name` gives
/// the extension TagLib tries first, the content is tried next). The file is read with
/// pread only: TagLib sees a read-only stream and never opens, writes or seeks the
/// descriptor's offset. Returns 0 on success, -1 when no TagLib format recognises it.
int docent_media_read(int fd, long long size, const char *name, docent_media_info *info);

void docent_media_info_free(docent_media_info *info);

/// The picture embedded in the open file `fd` (a front cover first, else the first one):
/// ID3v2 APIC frames (MP3), FLAC picture blocks, Xiph METADATA_BLOCK_PICTURE (Ogg Vorbis,
/// Opus, FLAC), MP4 `covr` and ASF WM/Picture. Returns 0 with the encoded image bytes in
/// `*bytes` (free with free()), or -1 when the file has none.
int docent_media_cover(int fd, long long size, const char *name, unsigned char **bytes, unsigned long *length);

#ifdef __cplusplus
}
#endif
#endif
