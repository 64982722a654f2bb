#ifndef DOCENT_CPOPPLER_SHIM_H
#define DOCENT_CPOPPLER_SHIM_H
#include <poppler.h>

/// GLib's error domain for poppler, as a function (the macro is not visible to Swift).
static inline GQuark docent_poppler_error_quark(void) { return POPPLER_ERROR; }
/// Frees what g_malloc returned (the GLib inline is not visible to Swift).
static inline void docent_g_free(void *p) { g_free(p); }
#endif
