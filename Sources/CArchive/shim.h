#ifndef DOCENT_CARCHIVE_SHIM_H
#define DOCENT_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
