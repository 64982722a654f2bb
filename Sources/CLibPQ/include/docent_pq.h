// libpq, PostgreSQL's client library, loaded when first needed (dlopen of libpq.so.5): a
// Docent that never uses a PostgreSQL index never loads it, and a search does not pay the
// ~3 ms that loading libpq and its libraries (OpenSSL, Kerberos, LDAP) costs a process.
// The declarations follow libpq-fe.h (libpq 5, stable since PostgreSQL 8.0).
#ifndef DOCENT_PQ_H
#define DOCENT_PQ_H

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef void (*docent_pq_notice_processor)(void *arg, const char *message);

enum {
    DOCENT_CONNECTION_OK = 0,     // ConnStatusType's CONNECTION_OK
    DOCENT_PGRES_COMMAND_OK = 1,  // ExecStatusType's PGRES_COMMAND_OK
    DOCENT_PGRES_TUPLES_OK = 2,   // ExecStatusType's PGRES_TUPLES_OK
};

/// Loads libpq once (thread-safe); 0 when it is there, -1 otherwise (`docent_pq_load_error`).
int docent_pq_load(void);
/// Why loading failed (dlerror's message).
const char *docent_pq_load_error(void);

PGconn *docent_PQconnectdb(const char *conninfo);
PGconn *docent_PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname);
int docent_PQstatus(const PGconn *conn);
void docent_PQfinish(PGconn *conn);
void docent_PQreset(PGconn *conn);
char *docent_PQerrorMessage(const PGconn *conn);
const char *docent_PQparameterStatus(const PGconn *conn, const char *name);
void docent_PQsetNoticeProcessor(PGconn *conn, docent_pq_notice_processor processor, void *arg);
PGresult *docent_PQexecParams(PGconn *conn, const char *command, int count, const unsigned int *types,
                              const char *const *values, const int *lengths, const int *formats, int resultFormat);
int docent_PQresultStatus(const PGresult *result);
char *docent_PQresultErrorField(const PGresult *result, int field);
void docent_PQclear(PGresult *result);
int docent_PQntuples(const PGresult *result);
char *docent_PQcmdTuples(PGresult *result);
int docent_PQgetisnull(const PGresult *result, int row, int column);
int docent_PQgetlength(const PGresult *result, int row, int column);
char *docent_PQgetvalue(const PGresult *result, int row, int column);
int docent_PQsocket(const PGconn *conn);
/// Reads what the server sent (`PQconsumeInput`), then takes and frees every notification
/// that came (`PQnotifies`, `PQfreemem`): how many, or -1 when the connection failed.
int docent_pq_take_notifications(PGconn *conn);

#endif
