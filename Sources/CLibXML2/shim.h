#ifndef DOCENT_CLIBXML2_SHIM_H
#define DOCENT_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the ICU copy inside Foundation;
// Docent uses no ICU-specific libxml2 API, so hide them.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

/// xmlFree is a macro in threaded builds of libxml2, which Swift cannot call.
static inline void docent_xml_free(void *pointer) { xmlFree(pointer); }
#endif
