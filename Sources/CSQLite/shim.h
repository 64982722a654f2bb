#ifndef DOCENT_CSQLITE_SHIM_H
#define DOCENT_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
