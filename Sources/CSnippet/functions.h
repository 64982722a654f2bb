#ifndef DOCENT_FUNCTIONS_H
#define DOCENT_FUNCTIONS_H
#include <sqlite3.h>

/* Registers docent_rank (rank.c) with FTS5 on one connection. */
int docent_register_rank(fts5_api *api);

#endif
