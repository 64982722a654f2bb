#include "docent_pq.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *library;
static const char *load_error = "libpq was not loaded";

static PGconn *(*p_PQconnectdb)(const char *);
static PGconn *(*p_PQconnectdbParams)(const char *const *, const char *const *, int);
static int (*p_PQstatus)(const PGconn *);
static void (*p_PQfinish)(PGconn *);
static void (*p_PQreset)(PGconn *);
static char *(*p_PQerrorMessage)(const PGconn *);
static const char *(*p_PQparameterStatus)(const PGconn *, const char *);
static docent_pq_notice_processor (*p_PQsetNoticeProcessor)(PGconn *, docent_pq_notice_processor, void *);
static PGresult *(*p_PQexecParams)(PGconn *, const char *, int, const unsigned int *, const char *const *, const int *,
                                   const int *, int);
static int (*p_PQresultStatus)(const PGresult *);
static char *(*p_PQresultErrorField)(const PGresult *, int);
static void (*p_PQclear)(PGresult *);
static int (*p_PQntuples)(const PGresult *);
static char *(*p_PQcmdTuples)(PGresult *);
static int (*p_PQgetisnull)(const PGresult *, int, int);
static int (*p_PQgetlength)(const PGresult *, int, int);
static char *(*p_PQgetvalue)(const PGresult *, int, int);
static int (*p_PQsocket)(const PGconn *);
static int (*p_PQconsumeInput)(PGconn *);
static void *(*p_PQnotifies)(PGconn *);
static void (*p_PQfreemem)(void *);

#define RESOLVE(name)                                   \
    do {                                                \
        *(void **)&p_##name = dlsym(library, #name);    \
        if (p_##name == NULL) goto missing;             \
    } while (0)

static void load(void) {
    library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *message = dlerror();
        load_error = message != NULL ? message : "libpq.so.5 cannot be loaded";
        return;
    }
    RESOLVE(PQconnectdb); RESOLVE(PQconnectdbParams); RESOLVE(PQstatus); RESOLVE(PQfinish); RESOLVE(PQreset); RESOLVE(PQerrorMessage);
    RESOLVE(PQparameterStatus); RESOLVE(PQsetNoticeProcessor); RESOLVE(PQexecParams); RESOLVE(PQresultStatus);
    RESOLVE(PQresultErrorField); RESOLVE(PQclear); RESOLVE(PQntuples); RESOLVE(PQcmdTuples); RESOLVE(PQgetisnull);
    RESOLVE(PQgetlength); RESOLVE(PQgetvalue); RESOLVE(PQsocket); RESOLVE(PQconsumeInput); RESOLVE(PQnotifies);
    RESOLVE(PQfreemem);
    load_error = NULL;
    return;
missing:
    load_error = "libpq.so.5 lacks a function Docent uses";
    dlclose(library);
    library = NULL;
}

int docent_pq_load(void) {
    pthread_once(&once, load);
    return load_error == NULL ? 0 : -1;
}

const char *docent_pq_load_error(void) { return load_error != NULL ? load_error : ""; }

PGconn *docent_PQconnectdb(const char *conninfo) { return p_PQconnectdb(conninfo); }
PGconn *docent_PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return p_PQconnectdbParams(keywords, values, expand_dbname);
}
int docent_PQstatus(const PGconn *conn) { return p_PQstatus(conn); }
void docent_PQfinish(PGconn *conn) { if (conn != NULL) p_PQfinish(conn); }
void docent_PQreset(PGconn *conn) { p_PQreset(conn); }
char *docent_PQerrorMessage(const PGconn *conn) { return p_PQerrorMessage(conn); }
const char *docent_PQparameterStatus(const PGconn *conn, const char *name) { return p_PQparameterStatus(conn, name); }
void docent_PQsetNoticeProcessor(PGconn *conn, docent_pq_notice_processor processor, void *arg) {
    p_PQsetNoticeProcessor(conn, processor, arg);
}
PGresult *docent_PQexecParams(PGconn *conn, const char *command, int count, const unsigned int *types,
                              const char *const *values, const int *lengths, const int *formats, int resultFormat) {
    return p_PQexecParams(conn, command, count, types, values, lengths, formats, resultFormat);
}
int docent_PQresultStatus(const PGresult *result) { return p_PQresultStatus(result); }
char *docent_PQresultErrorField(const PGresult *result, int field) { return p_PQresultErrorField(result, field); }
void docent_PQclear(PGresult *result) { if (result != NULL) p_PQclear(result); }
int docent_PQntuples(const PGresult *result) { return p_PQntuples(result); }
char *docent_PQcmdTuples(PGresult *result) { return p_PQcmdTuples(result); }
int docent_PQgetisnull(const PGresult *result, int row, int column) { return p_PQgetisnull(result, row, column); }
int docent_PQgetlength(const PGresult *result, int row, int column) { return p_PQgetlength(result, row, column); }
char *docent_PQgetvalue(const PGresult *result, int row, int column) { return p_PQgetvalue(result, row, column); }
int docent_PQsocket(const PGconn *conn) { return p_PQsocket(conn); }

int docent_pq_take_notifications(PGconn *conn) {
    if (p_PQconsumeInput(conn) == 0) return -1;
    int count = 0;
    for (void *notification; (notification = p_PQnotifies(conn)) != NULL; count++) p_PQfreemem(notification);
    return count;
}
