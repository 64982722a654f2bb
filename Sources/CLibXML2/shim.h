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

static inline void docent_xml_ignore(void *context, const char *message, ...) { (void)context; (void)message; }

/// Sends libxml2's generic error channel nowhere, on this thread and on threads that use
/// libxml2 later: a few messages (an entity redeclared, say) ignore XML_PARSE_NOERROR and
/// would reach standard error. Errors are still kept for xmlGetLastError.
static inline void docent_xml_silence(void) {
    xmlThrDefSetGenericErrorFunc(NULL, docent_xml_ignore);
    xmlSetGenericErrorFunc(NULL, docent_xml_ignore);
}

/// The same for this thread alone (a thread-local pointer; no lock), before each parse.
static inline void docent_xml_silence_thread(void) { xmlSetGenericErrorFunc(NULL, docent_xml_ignore); }

/// xmlFree is a macro in threaded builds of libxml2, which Swift cannot call.
static inline void docent_xml_free(void *pointer) { xmlFree(pointer); }
#endif
