#include <sqlite3.h>
#include "docent_snippet.h"

/* What the commit hook needs: the log's size that calls for a checkpoint, and whom to tell. */
typedef struct {
    int frames;
    void (*ready)(void *context);
    void *context;
} trigger;

/* SQLite's commit hook for a WAL database: called after each commit with the frames the log
   holds. It replaces the automatic checkpoint, which would copy them in the committing thread. */
static int committed(void *argument, sqlite3 *db, const char *schema, int frames) {
    (void)db;
    (void)schema;
    const trigger *t = argument;
    if (frames >= t->frames) t->ready(t->context);
    return SQLITE_OK;
}

void *docent_hand_off_checkpoints(void *db, int frames, void (*ready)(void *context), void *context) {
    trigger *t = sqlite3_malloc(sizeof *t);
    if (!t) return 0;
    t->frames = frames;
    t->ready = ready;
    t->context = context;
    sqlite3_wal_hook(db, committed, t);
    return t;
}

void docent_take_back_checkpoints(void *db, void *handle, int frames) {
    sqlite3_wal_autocheckpoint(db, frames); /* installs SQLite's own hook in place of ours */
    sqlite3_free(handle);
}
