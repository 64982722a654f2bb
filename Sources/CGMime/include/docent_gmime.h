#ifndef DOCENT_GMIME_H
#define DOCENT_GMIME_H
#include <gmime/gmime.h>

// GObject's type checks and casts are macros, not visible to Swift.
static inline int docent_gmime_is_text_part(GMimeObject *object) { return GMIME_IS_TEXT_PART(object); }
static inline int docent_gmime_is_part(GMimeObject *object) { return GMIME_IS_PART(object); }
static inline int docent_gmime_is_message_part(GMimeObject *object) { return GMIME_IS_MESSAGE_PART(object); }
static inline int docent_gmime_is_multipart(GMimeObject *object) { return GMIME_IS_MULTIPART(object); }
static inline void docent_gmime_unref(void *object) { g_object_unref(object); }
static inline void docent_gmime_free(void *p) { g_free(p); }
#endif
