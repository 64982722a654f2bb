#ifndef DOCENT_CLIBXML2_SHIM_H
#define DOCENT_CLIBXML2_SHIM_H
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#endif
